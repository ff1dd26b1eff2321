// Loaded with `node --import` by deploy/herald before any TypeScript module: an older
// Node cannot even read herald's source (it stops at ERR_UNKNOWN_FILE_EXTENSION), so the
// version is checked here, in plain JavaScript, and refused in one line (exit 78, as a
// configuration error). Node 24 runs the .ts source as it is (type stripping).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`herald: Node.js 24 or later is required; this is Node.js ${process.versions.node} (${process.execPath})\n`);
  process.exit(78);
}
