// Module hooks for startup-imports.test.ts: prints each package a Talaria module imports.
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (!parent.includes('/node_modules/') && !/^(node:|\.|\/|file:)/.test(specifier))
    process.stderr.write(`PACKAGE ${specifier}\n`);
  return next(specifier, context);
}
