// Filled by the mnl environments.
export {};
