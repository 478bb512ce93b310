/**
 * The egress table (PRODUCT.md section 10): URLs a customer may not make us call, in every
 * spelling. Tests check each is refused before any connection: agent cards, robot endpoints,
 * webhook endpoints, at creation and again at call time.
 */
export const HOSTILE_URLS = [
  'https://127.0.0.1/card.json',
  'https://127.1/card.json',
  'https://2130706433/card.json',
  'https://0x7f000001/card.json',
  'https://0177.0.0.1/card.json',
  'https://0.0.0.0/card.json',
  'https://10.0.0.5/card.json',
  'https://192.168.1.10/card.json',
  'https://169.254.169.254/latest/meta-data/',
  'https://[::1]/card.json',
  'https://[0:0:0:0:0:0:0:1]/card.json',
  'https://[::ffff:127.0.0.1]/card.json',
  'https://[::ffff:a9fe:a9fe]/card.json',
  'https://[fd00::1]/card.json',
  'https://[fe80::1]/card.json',
  'https://localhost/card.json',
  'https://LOCALHOST./card.json',
  'https://agent.localhost/card.json',
  'https://printer.local/card.json',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://intranet/card.json',
  'https://router.lan/card.json',
  'https://nas.home.arpa/card.json',
  'https://agent.example.com:8443/card.json',
  'https://agent.example.com:444/card.json',
  'http://agent.example.com/card.json',
  'http://127.0.0.1:8788/card.json',
  'ftp://agent.example.com/card.json',
  'https://user:secret@agent.example.com/card.json',
  'file:///etc/passwd',
];

