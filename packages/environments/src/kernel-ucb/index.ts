// Filled by the kernel-ucb environments.
export {};
