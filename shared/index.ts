// The one import path plugin/ and companion/ use for shared code.
export * from './ports';
export * from './markdown/index';
export * from './reminders/index';
export * from './search/index';
export * from './chat/index';
export * from './protocol/index';
