/**
 * The unsubscribe pages' words in every language (docs/unsubscribe.md#languages): the built-in page texts a
 * company may replace per language, and the fixed titles, labels, buttons and messages around them.
 */
import type { Language } from '../lib/languages.ts';

/** The three texts a company may set per language (`PUT /optout/settings` `texts`). */
export interface PageTexts {
  defaultPageText: string;
  confirmPageText: string;
  resultPageText: string;
}

export const TEXT_NAMES = ['defaultPageText', 'confirmPageText', 'resultPageText'] as const satisfies readonly (keyof PageTexts)[];

/** The built-in page texts, per language. */
export const BUILT_IN_TEXTS: Readonly<Record<Language, Readonly<PageTexts>>> = {
  en: {
    defaultPageText:
      'To stop receiving our e-mails, use the unsubscribe link at the bottom of the e-mail you received. ' +
      'Each link is personal, so we know which address to remove.',
    confirmPageText: 'Press the button below and this address will get no more e-mails from us.',
    resultPageText: 'You have been unsubscribed. We will not send further e-mails to this address.',
  },
  nl: {
    defaultPageText:
      'Wilt u geen e-mails meer van ons ontvangen? Gebruik dan de afmeldlink onderaan de e-mail die u van ons kreeg. ' +
      'Elke link is persoonlijk, zodat wij weten welk adres we moeten verwijderen.',
    confirmPageText: 'Klik op de knop hieronder, dan sturen wij geen e-mails meer naar dit adres.',
    resultPageText: 'U bent afgemeld. Wij sturen geen e-mails meer naar dit adres.',
  },
  de: {
    defaultPageText:
      'Wenn Sie keine E-Mails mehr von uns erhalten möchten, nutzen Sie bitte den Abmeldelink am Ende der E-Mail, die Sie erhalten haben. ' +
      'Jeder Link ist persönlich, damit wir wissen, welche Adresse wir entfernen sollen.',
    confirmPageText: 'Klicken Sie auf die Schaltfläche unten, dann senden wir keine E-Mails mehr an diese Adresse.',
    resultPageText: 'Sie wurden abgemeldet. Wir senden keine weiteren E-Mails an diese Adresse.',
  },
};

/** The fixed words of the pages in one language. */
export interface PageWords {
  defaultTitle: string;
  confirmTitle: string;
  resultTitle: string;
  notFoundTitle: string;
  tooManyTitle: string;
  errorTitle: string;
  addressLabel: string;
  button: string;
  notFoundText: string;
  errorText: string;
  /** The 429 page's message for a wait of this many seconds. */
  tooManyText(retryAfterSeconds: number): string;
}

const minutesOf = (seconds: number) => Math.ceil(seconds / 60);

/** The pages' fixed words, per language. */
export const PAGE_WORDS: Readonly<Record<Language, PageWords>> = {
  en: {
    defaultTitle: 'Unsubscribe',
    confirmTitle: 'Unsubscribe from our e-mails',
    resultTitle: 'You are unsubscribed',
    notFoundTitle: 'Link not valid',
    tooManyTitle: 'Please wait a moment',
    errorTitle: 'Something went wrong',
    addressLabel: 'E-mail address:',
    button: 'Unsubscribe',
    notFoundText: 'This unsubscribe link is not valid. Please open the link from the e-mail you received once more, exactly as it appears there.',
    errorText: 'We could not complete your request. Please try again in a few minutes.',
    tooManyText: (s) => {
      const m = minutesOf(s);
      return `We received too many requests. Please try again in ${s < 60 ? `${s} seconds` : `${m} minute${m === 1 ? '' : 's'}`}.`;
    },
  },
  nl: {
    defaultTitle: 'Afmelden',
    confirmTitle: 'Afmelden voor onze e-mails',
    resultTitle: 'U bent afgemeld',
    notFoundTitle: 'Link niet geldig',
    tooManyTitle: 'Een ogenblik geduld',
    errorTitle: 'Er ging iets mis',
    addressLabel: 'E-mailadres:',
    button: 'Afmelden',
    notFoundText: 'Deze afmeldlink is niet geldig. Open de link in de e-mail die u ontving nog eens, precies zoals hij daar staat.',
    errorText: 'Uw verzoek kon niet worden afgerond. Probeer het over een paar minuten opnieuw.',
    tooManyText: (s) => {
      const m = minutesOf(s);
      return `We ontvingen te veel verzoeken. Probeer het over ${s < 60 ? `${s} seconden` : `${m} ${m === 1 ? 'minuut' : 'minuten'}`} opnieuw.`;
    },
  },
  de: {
    defaultTitle: 'Abmelden',
    confirmTitle: 'Von unseren E-Mails abmelden',
    resultTitle: 'Sie sind abgemeldet',
    notFoundTitle: 'Link ungültig',
    tooManyTitle: 'Einen Moment bitte',
    errorTitle: 'Etwas ist schiefgelaufen',
    addressLabel: 'E-Mail-Adresse:',
    button: 'Abmelden',
    notFoundText: 'Dieser Abmeldelink ist nicht gültig. Bitte öffnen Sie den Link aus der erhaltenen E-Mail noch einmal, genau so, wie er dort steht.',
    errorText: 'Ihre Anfrage konnte nicht abgeschlossen werden. Bitte versuchen Sie es in ein paar Minuten erneut.',
    tooManyText: (s) => {
      const m = minutesOf(s);
      return `Wir haben zu viele Anfragen erhalten. Bitte versuchen Sie es in ${s < 60 ? `${s} Sekunden` : `${m} ${m === 1 ? 'Minute' : 'Minuten'}`} erneut.`;
    },
  },
};
