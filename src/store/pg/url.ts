/** Whether a store location is a PostgreSQL server (kept apart: the writer thread asks it, and needs nothing else of pg/). */
export const isPgUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);
