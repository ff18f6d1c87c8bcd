/**
 * The English catalogue: the source of every key (nl.ts and de.ts must have the same). Texts use vue-i18n's message
 * syntax: `{name}` is filled in, `a | b` chooses by count, and `@ { } | $` are written `{'@'}` etc.
 */
export const en = {
  app: {
    name: 'CATI Supervisor',
    skipToMain: 'Skip to main content',
    screens: 'Screens',
    loading: 'Loading…',
    screenFailed: 'The {screen} screen could not be opened ({message}); try again when the server answers.',
    screenFallback: 'requested',
  },
  nav: {
    floor: 'Floor',
    surveysToday: 'Surveys today',
    productivity: 'Productivity',
    history: 'History',
    interviewers: 'Interviewers',
    groups: 'Groups',
    surveys: 'Surveys',
    blacklist: 'Blacklist',
    optout: 'Opt-out lists',
    settings: 'Settings',
    wallboard: 'Wallboard',
  },
  user: {
    signOut: 'Sign out',
    role: {
      administrator: 'administrator',
      supervisor: 'supervisor',
      viewer: 'viewer',
    },
  },
  signIn: {
    title: 'Sign in',
    ended: 'Your session has ended (12 hours without use, signed out elsewhere, or revoked). Sign in again to carry on where you were.',
    name: 'Name',
    password: 'Password',
    submit: 'Sign in',
    help: "The server's owner can also open the link the server printed when it started ({link}; it works once, within 15 minutes), or get a fresh one with {command}. A session lives only in this browser tab and ends after 12 hours without use.",
  },
  unsubscribeTexts: {
    title: 'Unsubscribe pages',
    companyName: 'Company name',
    defaultLanguage: 'Language when no other fits',
    howChosen: "A page speaks its list's language; a list without one speaks the respondent's browser language when there are texts in it, else the language above. An empty text is the built-in one.",
    languages: 'Languages of the page texts',
    text: {
      defaultPageText: 'Default page text (no key)',
      confirmPageText: 'Confirm page text',
      resultPageText: 'Result page text',
    },
    save: 'Save texts',
    saved: 'Unsubscribe page texts saved.',
    preview: 'Preview: {text}, {language}',
  },
  language: {
    label: 'Language',
    save: 'Save language',
    browserDefault: 'Browser default',
    saved: 'Language saved: {language}.',
    savedHere: 'Language saved in this browser: {language}.',
  },
};

/** The catalogue's shape, which every language follows. */
export type Messages = typeof en;
