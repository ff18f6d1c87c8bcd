/** Word lists for realistic demo data. */

export const FIRST_NAMES = [
  'Anna', 'Ben', 'Chloe', 'Daniel', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Karin', 'Liam', 'Maria', 'Noah',
  'Olivia', 'Pieter', 'Quinn', 'Rosa', 'Sven', 'Tessa', 'Umar', 'Vera', 'Willem', 'Yara', 'Zoe', 'Amira', 'Bram', 'Carmen',
  'Dirk', 'Elif', 'Fatima', 'Gijs', 'Hanna', 'Ivo', 'Julia', 'Koen', 'Lotte', 'Mehmet', 'Nina', 'Oscar', 'Priya', 'Ruben',
  'Sara', 'Tom', 'Lucas', 'Sophie', 'Mila', 'Daan', 'Fleur', 'Jasper',
] as const;

export const LAST_NAMES = [
  'de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Mulder', 'de Boer', 'Bos', 'Vos', 'Peters', 'Hendriks',
  'van Dijk', 'Dekker', 'Brouwer', 'de Wit', 'Dijkstra', 'Kok', 'Jacobs', 'van den Berg', "O'Neil", 'Garcia', 'Yilmaz',
  'Kowalski', 'Nguyen', 'Schmidt', 'Rossi', 'Murphy', 'Novak', 'Haddad',
] as const;

export const CALL_CENTERS = ['Main', 'Rotterdam Harbour', 'Utrecht Centraal'] as const;

/** Groups with their parent (by index into this list; null = the root group). */
export const GROUPS: readonly { name: string; description: string; parent: number | null }[] = [
  { name: 'Day shift', description: 'Weekdays 08:00-16:00', parent: null },
  { name: 'Evening shift', description: 'Weekdays 16:00-21:00', parent: null },
  { name: 'Weekend team', description: 'Saturday and Sunday', parent: null },
  { name: 'Senior interviewers', description: 'Refusal conversion and B2B', parent: null },
  { name: 'Trainees', description: 'First three months', parent: null },
  { name: 'Healthcare panel', description: 'Certified for medical questionnaires', parent: 3 },
  { name: 'Multilingual', description: 'English, Turkish, Arabic and Polish speakers', parent: null },
  { name: 'B2B decision makers', description: 'Business surveys', parent: 3 },
];

/** Surveys: title, state and the variables they replicate (first ones available as CATI filter). */
export const SURVEYS: readonly { name: string; state: 'Open' | 'Closed'; variables: string[]; filters: number }[] = [
  { name: 'Customer satisfaction Q4 - Energy', state: 'Open', variables: ['Region', 'Segment', 'NPS', 'Contract'], filters: 3 },
  { name: 'Political barometer November', state: 'Open', variables: ['Region', 'AgeGroup', 'VoteIntention', 'Gender'], filters: 4 },
  { name: 'Public transport passenger survey', state: 'Open', variables: ['Region', 'TravelMode', 'Frequency'], filters: 2 },
  { name: 'Health monitor adults 2026', state: 'Open', variables: ['AgeGroup', 'Gender', 'GP_Visits', 'Smoker'], filters: 2 },
  { name: 'SME banking study', state: 'Open', variables: ['CompanySize', 'Sector', 'Bank'], filters: 3 },
  { name: 'Broadband provider churn', state: 'Open', variables: ['Provider', 'Region', 'Speed'], filters: 2 },
  { name: 'Municipal services feedback', state: 'Open', variables: ['Municipality', 'AgeGroup'], filters: 2 },
  { name: 'Retail loyalty programme', state: 'Open', variables: ['Store', 'Segment', 'Spend'], filters: 2 },
  { name: 'Car ownership and EV intention', state: 'Closed', variables: ['Region', 'CarType', 'EVIntention'], filters: 3 },
  { name: 'Employee engagement follow-up', state: 'Closed', variables: ['Department', 'Tenure'], filters: 1 },
  { name: 'Holiday travel 2027 outlook', state: 'Open', variables: ['Region', 'Destination', 'Budget'], filters: 2 },
  { name: 'Insurance claims experience', state: 'Open', variables: ['ClaimType', 'Region', 'Score'], filters: 2 },
];

/** Values used for demo answers of a variable name (others get a number). */
export const VARIABLE_VALUES: Record<string, readonly string[]> = {
  Region: ['North', 'East', 'South', 'West', 'Randstad'],
  Segment: ['Residential', 'Small business', 'Premium'],
  AgeGroup: ['18-24', '25-34', '35-44', '45-54', '55-64', '65+'],
  Gender: ['Female', 'Male', 'Other', 'Refused'],
  VoteIntention: ['Party A', 'Party B', 'Party C', 'Undecided', 'Will not vote'],
  TravelMode: ['Train', 'Bus', 'Tram', 'Metro'],
  Frequency: ['Daily', 'Weekly', 'Monthly', 'Rarely'],
  Smoker: ['Yes', 'No'],
  CompanySize: ['1-9', '10-49', '50-249', '250+'],
  Sector: ['Retail', 'Manufacturing', 'Services', 'Construction', 'Agriculture'],
  Bank: ['ABN', 'ING', 'Rabo', 'Other'],
  Provider: ['KPN', 'Ziggo', 'Odido', 'Other'],
  Contract: ['Fixed', 'Variable', 'Dynamic'],
  CarType: ['Petrol', 'Diesel', 'Hybrid', 'Electric', 'None'],
  EVIntention: ['Within a year', 'Within 3 years', 'Later', 'Never'],
  Store: ['Amsterdam', 'Utrecht', 'Rotterdam', 'Eindhoven', 'Groningen'],
  Municipality: ['Amsterdam', 'Rotterdam', 'Den Haag', 'Utrecht', 'Zwolle'],
  Department: ['Sales', 'Operations', 'IT', 'Finance', 'HR'],
  Destination: ['Home country', 'Europe', 'Outside Europe', 'None'],
  ClaimType: ['Car', 'Home', 'Travel', 'Health'],
};

/** Extended statuses: code, weight, duration range (s). */
export const CALL_OUTCOMES: readonly (readonly [code: number, weight: number, minSec: number, maxSec: number])[] = [
  [1, 12, 240, 1500], // completed interview
  [2, 30, 0, 0], // no answer
  [3, 8, 0, 0], // busy
  [4, 14, 15, 40], // answering machine
  [5, 10, 20, 120], // refusal
  [6, 9, 40, 180], // appointment made
  [7, 5, 5, 30], // wrong / disconnected number
  [8, 4, 60, 600], // interrupted, call back
  [9, 3, 10, 60], // language problem
  [10, 5, 0, 0], // dialer abandoned (no agent)
];

export const BREAK_TYPES: readonly (readonly [id: number, name: string, paid: boolean, minSec: number, maxSec: number, weight: number])[] = [
  [1, 'Coffee break', true, 300, 900, 5],
  [2, 'Lunch', false, 1800, 2700, 2],
  [3, 'Technical problem', true, 60, 1200, 1],
  [4, 'Team meeting', true, 900, 1800, 1],
  [5, 'Coaching', true, 600, 1800, 1],
];

export const BLACKLIST = [
  ['31201234567', 'Equal', 'Asked never to be called again'],
  ['31612345678', 'Equal', 'Complaint 2026-10-03'],
  ['3190', 'StartWith', 'Premium-rate numbers'],
  ['31800', 'StartWith', 'Toll-free service numbers'],
  ['31307654321', 'Equal', null],
] as const;

export const OPTOUT_DOMAINS = ['example-competitor.nl', 'mailinator.com', 'gov.example'] as const;
