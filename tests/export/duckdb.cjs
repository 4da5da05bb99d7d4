// Run one SQL statement in DuckDB (npm @duckdb/node-api, found through
// NODE_PATH) and print its rows as comma-separated values; the time the
// query took goes to stderr as "ms N".
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
	const inst = await DuckDBInstance.create(':memory:');
	const c = await inst.connect();
	const t0 = Date.now();
	const r = await c.runAndReadAll(process.argv[2]);
	for (const row of r.getRows()) console.log(row.map(String).join(','));
	console.error('ms ' + (Date.now() - t0));
})().catch((e) => {
	console.error(String(e));
	process.exit(1);
});
