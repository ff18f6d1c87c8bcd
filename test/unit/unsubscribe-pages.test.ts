import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maskAddress } from '../../server/unsubscribe/mask-address.ts';
import { DEFAULT_PAGE_SETTINGS } from '../../server/unsubscribe/page-settings.ts';
import { confirmPage, defaultPage, escapeHtml, PAGE_HEADERS, resultPage } from '../../server/unsubscribe/pages.ts';

const hostile = '<script>alert("x")</script>&\'';

describe('maskAddress', () => {
  it('keeps the first characters and the top-level domain', () => {
    expect(maskAddress('john.doe@example.com')).toBe('j•••@e•••.com');
    expect(maskAddress('a@mail.example.co.uk')).toBe('a•••@m•••.uk');
    expect(maskAddress('x@localhost')).toBe('x•••@l•••');
  });

  it('shows a punycode domain in Unicode', () => {
    expect(maskAddress('ann@xn--mller-kva.de')).toBe('a•••@m•••.de');
  });
});

describe('page templates', () => {
  it('escapes every reflected value', () => {
    expect(escapeHtml(hostile)).toBe('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;');
    const settings = { companyName: hostile, defaultPageText: hostile, confirmPageText: hostile, resultPageText: hostile };
    for (const html of [defaultPage(settings), confirmPage(settings, hostile, hostile), resultPage(settings, hostile)]) {
      expect(html).not.toContain('<script');
      expect(html).not.toContain('"x"');
      expect(html).toContain('&#60;script&#62;');
    }
  });

  it('turns blank lines into paragraphs and line breaks into <br>', () => {
    const html = defaultPage({ ...DEFAULT_PAGE_SETTINGS, defaultPageText: 'one\ntwo\n\nthree' });
    expect(html).toContain('<p>one<br>two</p>\n<p>three</p>');
  });

  it('allows exactly its own inline style through the CSP hash', () => {
    const html = confirmPage(DEFAULT_PAGE_SETTINGS, 'j•••@e•••.com', 'AQx1');
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = createHash('sha256').update(css).digest('base64');
    expect(PAGE_HEADERS['Content-Security-Policy']).toContain(`style-src 'sha256-${hash}'`);
    expect(html).not.toMatch(/<script|\son\w+=|style="/);
  });
});
