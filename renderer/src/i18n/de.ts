/** Die deutschen Texte (the German catalogue: the same keys as en.ts, in a German call centre's words). */
import type { Catalogue } from './catalogue.ts';
import type { Messages } from './en.ts';

export const de: Catalogue<Messages> = {
  app: {
    name: 'CATI Supervisor',
    skipToMain: 'Zum Inhalt springen',
    screens: 'Ansichten',
    loading: 'Wird geladen…',
    screenFailed: 'Die Ansicht {screen} konnte nicht geöffnet werden ({message}); bitte erneut versuchen, sobald der Server antwortet.',
    screenFallback: 'angeforderte',
  },
  nav: {
    floor: 'Live-Übersicht',
    surveysToday: 'Studien heute',
    productivity: 'Produktivität',
    history: 'Verlauf',
    interviewers: 'Interviewer',
    groups: 'Gruppen',
    surveys: 'Studien',
    blacklist: 'Sperrliste',
    optout: 'Abmeldelisten',
    settings: 'Einstellungen',
    wallboard: 'Wallboard',
  },
  user: {
    signOut: 'Abmelden',
    role: {
      administrator: 'Administrator',
      supervisor: 'Supervisor',
      viewer: 'Betrachter',
    },
  },
  signIn: {
    title: 'Anmelden',
    ended: 'Ihre Sitzung ist beendet (12 Stunden nicht genutzt, anderswo abgemeldet oder widerrufen). Melden Sie sich erneut an, um dort weiterzumachen, wo Sie waren.',
    name: 'Name',
    password: 'Passwort',
    submit: 'Anmelden',
    help: 'Der Eigentümer des Servers kann auch den Link öffnen, den der Server beim Start ausgegeben hat ({link}; er funktioniert einmal, innerhalb von 15 Minuten), oder mit {command} einen neuen erzeugen. Eine Sitzung gilt nur in diesem Browser-Tab und endet nach 12 Stunden ohne Nutzung.',
  },
  unsubscribeTexts: {
    title: 'Abmeldeseiten',
    companyName: 'Firmenname',
    defaultLanguage: 'Sprache, wenn keine andere passt',
    howChosen: 'Eine Seite spricht die Sprache ihrer Liste; ohne Listensprache die Browsersprache der befragten Person, wenn es Texte in ihr gibt, sonst die Sprache oben. Ein leerer Text ist der eingebaute.',
    languages: 'Sprachen der Seitentexte',
    text: {
      defaultPageText: 'Text der allgemeinen Seite (ohne Schlüssel)',
      confirmPageText: 'Text der Bestätigungsseite',
      resultPageText: 'Text der Ergebnisseite',
    },
    save: 'Texte speichern',
    saved: 'Texte der Abmeldeseiten gespeichert.',
    preview: 'Vorschau: {text}, {language}',
  },
  language: {
    label: 'Sprache',
    save: 'Sprache speichern',
    browserDefault: 'Sprache des Browsers',
    saved: 'Sprache gespeichert: {language}.',
    savedHere: 'Sprache in diesem Browser gespeichert: {language}.',
  },
};
