// Filled by the basic environments.
export {};
