export * as resourceMapping from './resourceMapping';
