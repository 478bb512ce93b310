// The wrangler dev arguments of `npm run dev`: our defaults only where the user gave none, so every
// wrangler flag passed through wins (`npm run dev -- --ip 0.0.0.0` once gave wrangler --ip twice).

/** The value a wrangler flag was given (`--port 9000` or `--port=9000`), if it was. */
export function flagValue(args, name) {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index < 0) return undefined;
  const arg = args[index];
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[index + 1];
}

/**
 * `wrangler dev`'s arguments for the user's own, and the address to print and call. --test-scheduled
 * lets the cron ticker fire the crons of wrangler.toml through /__scheduled (scripts/cron.mjs).
 */
export function devArguments(passThrough) {
  const port = flagValue(passThrough, '--port') ?? '8787';
  const ip = flagValue(passThrough, '--ip') ?? '127.0.0.1';
  // Loopback (and a wildcard, reached on loopback from this machine) is called by its name:
  // WebAuthn takes no IP address as the relying party, so passkeys work only at localhost.
  const loopback = ip === '127.0.0.1' || ip === '0.0.0.0' || ip === '::' || ip === 'localhost';
  const base = `http://${loopback ? 'localhost' : ip}:${port}`;
  const args = [
    'dev',
    ...(flagValue(passThrough, '--ip') === undefined ? ['--ip', ip] : []),
    ...(flagValue(passThrough, '--port') === undefined ? ['--port', port] : []),
    ...(passThrough.includes('--test-scheduled') ? [] : ['--test-scheduled']),
    // The links of emails the cron sweep writes (billing notices) point here (worker/env.ts: LOCAL_ORIGIN).
    '--var',
    `LOCAL_ORIGIN:${base}`,
    ...passThrough,
  ];
  return { args, ip, port, base };
}
