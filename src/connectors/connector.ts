/**
 * The connector contract, split by what each part holds under `contract/`; this module is its
 * one import path for the rest of the service.
 */
export * from './contract/index.js';
