/** Which language the screens speak and how they write dates, times and numbers in it (docs/screens.md#language). */
import { afterEach, describe, expect, it } from 'vitest';
import { chooseLanguage, formatClockTime, formatDate, formatDateTime, formatNumber, i18n, matchLanguage, t } from '../../renderer/src/i18n/index.ts';

const AT = Date.UTC(2026, 10, 28, 22, 42, 5); // 23:42:05 in Amsterdam

afterEach(() => void (i18n.global.locale.value = 'en'));

describe('choosing the language', () => {
  it('maps tags onto the screens\' languages', () => {
    expect(matchLanguage('nl-BE')).toBe('nl');
    expect(matchLanguage('de_AT.UTF-8')).toBe('de');
    expect(matchLanguage('EN-us')).toBe('en');
    expect(matchLanguage('fr-FR')).toBeNull();
    expect(matchLanguage('')).toBeNull();
    expect(matchLanguage(null)).toBeNull();
  });

  it('takes the person\'s setting first, then this browser\'s choice, its languages, the OS, then English', () => {
    const all = { setting: 'de', local: 'nl', browser: ['fr-FR', 'en-US'], os: 'nl-NL' };
    expect(chooseLanguage(all)).toBe('de');
    expect(chooseLanguage({ ...all, setting: null })).toBe('nl');
    expect(chooseLanguage({ ...all, setting: null, local: null })).toBe('en');
    expect(chooseLanguage({ setting: null, local: null, browser: ['fr-FR', 'de-CH'], os: 'nl-NL' })).toBe('de');
    expect(chooseLanguage({ browser: ['fr-FR'], os: 'nl-NL' })).toBe('nl');
    expect(chooseLanguage({ browser: ['fr-FR'], os: 'pl-PL' })).toBe('en');
    expect(chooseLanguage({})).toBe('en');
  });

  it('falls back to English for a setting it does not know', () => {
    expect(chooseLanguage({ setting: 'xx', browser: [] })).toBe('en');
  });
});

describe('formatting in the language', () => {
  it('writes Dutch dates and times as 28-11-2026 23:42', () => {
    i18n.global.locale.value = 'nl';
    expect(formatDateTime(AT, { timeZone: 'Europe/Amsterdam' })).toBe('28-11-2026 23:42');
    expect(formatDateTime(new Date(AT).toISOString(), { timeZone: 'Europe/Amsterdam', seconds: true })).toBe('28-11-2026 23:42:05');
    expect(formatDate(AT, 'Europe/Amsterdam')).toBe('28-11-2026');
    expect(formatNumber(1234)).toBe('1.234');
  });

  it('writes German dates and times as 28.11.2026 23:42', () => {
    i18n.global.locale.value = 'de';
    expect(formatDateTime(AT, { timeZone: 'Europe/Amsterdam' })).toBe('28.11.2026 23:42');
    expect(formatClockTime(AT, { timeZone: 'Europe/Amsterdam', seconds: true })).toBe('23:42:05');
    expect(formatNumber(1234567.5, 1)).toBe('1.234.567,5');
  });

  it('keeps a 24-hour clock in English and gives an unreadable time back as it was', () => {
    expect(formatClockTime(AT, { timeZone: 'America/New_York' })).toBe('17:42');
    expect(formatDateTime('not a time')).toBe('not a time');
  });

  it('translates, and falls back to English', () => {
    i18n.global.locale.value = 'nl';
    expect(t('nav.floor')).toBe('Vloer');
    i18n.global.locale.value = 'de';
    expect(t('nav.blacklist')).toBe('Sperrliste');
  });
});

describe('report figures in the language', () => {
  it('writes rates and shares in the language\'s convention', async () => {
    const { formatRate, formatShare } = await import('../../renderer/src/stores/report-math.ts');
    expect([formatRate(2), formatShare(0.256)]).toEqual(['2.0', '26%']);
    i18n.global.locale.value = 'nl';
    expect([formatRate(2), formatRate(1234.5), formatShare(0.256)]).toEqual(['2,0', '1.234,5', '26%']);
    i18n.global.locale.value = 'de';
    expect([formatRate(0.75), formatShare(0.5)]).toEqual(['0,8', '50\u00a0%']);
  });
});
