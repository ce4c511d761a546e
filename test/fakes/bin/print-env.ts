/** Prints its environment as one JSON line and exits (env allow-list tests). */
process.stdout.write(JSON.stringify(process.env) + '\n');
