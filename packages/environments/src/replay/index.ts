// Filled by the replay environments.
export {};
