// Run SQL in one DuckDB connection (npm @duckdb/node-api, found through
// NODE_PATH): every statement of the file argv[2] (views, tables), then
// each further argument as one query, whose rows are printed one a line
// as JSON arrays (numbers that JSON cannot hold exactly, as strings),
// followed by a line "--".  A failing statement prints DuckDB's error and exits 1.
const fs = require('fs');
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
	const inst = await DuckDBInstance.create(':memory:');
	const c = await inst.connect();
	const setup = fs.readFileSync(process.argv[2], 'utf8');
	const st = await c.extractStatements(setup);
	for (let i = 0; i < st.count; i++) await (await st.prepare(i)).run();
	for (const q of process.argv.slice(3)) {
		const r = await c.runAndReadAll(q);
		for (const row of r.getRows())
			console.log(JSON.stringify(row.map((v) =>
				typeof v === 'bigint' ? String(v) :
				v !== null && typeof v === 'object' ? String(v) : v)));
		console.log('--');
	}
})().catch((e) => {
	console.error(String(e));
	process.exit(1);
});
