import { describe, expect, it } from 'vitest';
import { pageUrl, robotsAllow, robotsRules, sitemapLocations } from './crawl';

const allowed = (robots: string, path: string) => robotsAllow(robotsRules(robots), new URL(`https://a.example${path}`));

describe('robots.txt, as RFC 9309 reads it', () => {
  it('takes the group for every agent, or ours, and nobody else’s', () => {
    const robots = 'User-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n';
    expect(allowed(robots, '/private/notes')).toBe(false);
    expect(allowed(robots, '/guide')).toBe(true);
    expect(allowed('User-agent: EdgeGateway-Knowledge\nDisallow: /x\n', '/x/y')).toBe(false);
  });

  it('reads `*` as any run and a final `$` as the end; the longest match decides, allow on a tie', () => {
    const robots = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /docs/\nAllow: /docs/public/\nDisallow: /a*b\n';
    expect(allowed(robots, '/manual.pdf')).toBe(false);
    expect(allowed(robots, '/manual.pdf.html')).toBe(true);
    expect(allowed(robots, '/docs/internal')).toBe(false);
    expect(allowed(robots, '/docs/public/faq')).toBe(true);
    expect(allowed(robots, '/a-long-b')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /same\nAllow: /same\n', '/same')).toBe(true);
    // An empty Disallow forbids nothing; robots.txt itself is always allowed.
    expect(allowed('User-agent: *\nDisallow:\n', '/anything')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /\n', '/robots.txt')).toBe(true);
  });
});

describe('sitemaps and page URLs', () => {
  it('skips a <loc> that is not an http(s) URL, and reads entities', () => {
    const xml =
      '<urlset><url><loc>http://[::1</loc></url><url><loc>ftp://x.example/a</loc></url>' +
      '<url><loc> https://a.example/p?a=1&amp;b=2 </loc></url></urlset>';
    expect(sitemapLocations(xml, 'https://a.example/sitemap.xml')).toEqual(['https://a.example/p?a=1&b=2']);
  });

  it('reads a directory’s index.html as the directory, without a fragment', () => {
    expect(pageUrl('/index.html', 'https://a.example/')).toBe('https://a.example/');
    expect(pageUrl('https://a.example/docs/INDEX.HTM#top', 'https://a.example/')).toBe('https://a.example/docs/');
    expect(pageUrl('/docs/index.html.bak', 'https://a.example/')).toBe('https://a.example/docs/index.html.bak');
    expect(pageUrl('javascript:alert(1)', 'https://a.example/')).toBeNull();
  });
});
