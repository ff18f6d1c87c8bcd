/** De Nederlandse teksten (the Dutch catalogue: the same keys as en.ts, in a Dutch call centre's words). */
import type { Catalogue } from './catalogue.ts';
import type { Messages } from './en.ts';

export const nl: Catalogue<Messages> = {
  app: {
    name: 'CATI Supervisor',
    skipToMain: 'Naar de inhoud',
    screens: 'Schermen',
    loading: 'Laden…',
    screenFailed: 'Het scherm {screen} kon niet worden geopend ({message}); probeer het opnieuw zodra de server antwoordt.',
    screenFallback: 'gevraagde',
  },
  nav: {
    floor: 'Vloer',
    surveysToday: 'Onderzoeken vandaag',
    productivity: 'Productiviteit',
    history: 'Historie',
    interviewers: 'Interviewers',
    groups: 'Groepen',
    surveys: 'Onderzoeken',
    blacklist: 'Zwarte lijst',
    optout: 'Afmeldlijsten',
    settings: 'Instellingen',
    wallboard: 'Wallboard',
  },
  user: {
    signOut: 'Afmelden',
    role: {
      administrator: 'beheerder',
      supervisor: 'supervisor',
      viewer: 'meekijker',
    },
  },
  signIn: {
    title: 'Aanmelden',
    ended: 'Je sessie is beëindigd (12 uur niet gebruikt, elders afgemeld of ingetrokken). Meld je opnieuw aan om verder te gaan waar je was.',
    name: 'Naam',
    password: 'Wachtwoord',
    submit: 'Aanmelden',
    help: 'De eigenaar van de server kan ook de link openen die de server bij het starten toonde ({link}; die werkt één keer, binnen 15 minuten), of een nieuwe maken met {command}. Een sessie bestaat alleen in dit browsertabblad en eindigt na 12 uur zonder gebruik.',
  },
  unsubscribeTexts: {
    title: 'Afmeldpagina’s',
    companyName: 'Bedrijfsnaam',
    defaultLanguage: 'Taal als geen andere past',
    howChosen: 'Een pagina spreekt de taal van haar lijst; zonder lijsttaal de taal van de browser van de ontvanger als er teksten in die taal zijn, anders de taal hierboven. Een lege tekst is de standaardtekst.',
    languages: 'Talen van de paginateksten',
    text: {
      defaultPageText: 'Tekst van de algemene pagina (zonder sleutel)',
      confirmPageText: 'Tekst van de bevestigingspagina',
      resultPageText: 'Tekst van de resultaatpagina',
    },
    save: 'Teksten opslaan',
    saved: 'Teksten van de afmeldpagina’s opgeslagen.',
    preview: 'Voorbeeld: {text}, {language}',
  },
  language: {
    label: 'Taal',
    save: 'Taal opslaan',
    browserDefault: 'Taal van de browser',
    saved: 'Taal opgeslagen: {language}.',
    savedHere: 'Taal opgeslagen in deze browser: {language}.',
  },
};
