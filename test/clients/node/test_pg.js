// node-postgres (npm "pg") against snowflake.
//
// A table with DEFAULT snowflake_nextval(); rows inserted through
// client.query with parameters, ids read back with RETURNING and round-tripped
// exactly: int8 arrives as a string (pg's default) or as a BigInt (a type
// parser), never as a Number.  Then the README's warning, proved: the
// JSON-safe forms (id::text, snowflake_encode) arrive exactly, while the naive
// forms (a JSON number, int8 parsed as Number) lose precision above 2^53.
//
// Connection from the PG* environment (PGHOST, PGPORT, PGUSER, PGDATABASE);
// run by test/scripts/clients.sh.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const pg = require('pg');

const TWO_TO_53 = 2n ** 53n;
const INT8 = 20;   // type OID of bigint

// pg's default: int8 as a string.  And a client whose int8 parser is BigInt.
const asString = new pg.Client();
const asBigInt = new pg.Client({
  types: { getTypeParser: (oid, format) => (oid === INT8 ? BigInt : pg.types.getTypeParser(oid, format)) },
});
// The naive client: int8 parsed as a JavaScript Number.
const asNumber = new pg.Client({
  types: { getTypeParser: (oid, format) => (oid === INT8 ? Number : pg.types.getTypeParser(oid, format)) },
});

test.before(async () => {
  await Promise.all([asString.connect(), asBigInt.connect(), asNumber.connect()]);
  await asString.query('DROP TABLE IF EXISTS js_orders');
  await asString.query(`CREATE TABLE js_orders (
      id   bigint PRIMARY KEY DEFAULT snowflake_nextval(),
      item text NOT NULL)`);
});

test.after(async () => {
  await Promise.all([asString.end(), asBigInt.end(), asNumber.end()]);
});

test('insert with RETURNING: the id arrives as an exact decimal string', async () => {
  const r = await asString.query('INSERT INTO js_orders (item) VALUES ($1) RETURNING id', ['book']);
  const id = r.rows[0].id;
  assert.equal(typeof id, 'string');
  assert.match(id, /^[1-9][0-9]*$/);
  assert.ok(BigInt(id) > TWO_TO_53, `id ${id} is above 2^53`);
  // Round trip: the string as a parameter finds exactly that row.
  const back = await asString.query('SELECT id, id::text AS txt, item FROM js_orders WHERE id = $1', [id]);
  assert.equal(back.rowCount, 1);
  assert.equal(back.rows[0].id, id);
  assert.equal(back.rows[0].txt, id);
  assert.equal(back.rows[0].item, 'book');
});

test('int8 as BigInt: exact, and BigInt parameters round-trip', async () => {
  const r = await asBigInt.query('INSERT INTO js_orders (item) VALUES ($1), ($2) RETURNING id', ['pen', 'ink']);
  const [a, b] = r.rows.map((row) => row.id);
  assert.equal(typeof a, 'bigint');
  assert.ok(a > TWO_TO_53 && b > a, 'above 2^53 and increasing');
  const back = await asBigInt.query('SELECT id, item FROM js_orders WHERE id = ANY($1::bigint[]) ORDER BY id',
    [[a, b]]);
  assert.deepEqual(back.rows, [{ id: a, item: 'pen' }, { id: b, item: 'ink' }]);
  // The same ids through the string client are the same digits.
  const s = await asString.query('SELECT id FROM js_orders WHERE id = $1', [b]);
  assert.equal(s.rows[0].id, b.toString());
});

test('explicit ids at the edges round-trip exactly', async () => {
  const edges = [TWO_TO_53 + 1n, 910499571847892993n, 9223372036854775807n];
  for (const id of edges) {
    await asBigInt.query('INSERT INTO js_orders (id, item) VALUES ($1, $2)', [id, `edge ${id}`]);
    const r = await asBigInt.query('SELECT id, item FROM js_orders WHERE id = $1', [id]);
    assert.deepEqual(r.rows, [{ id, item: `edge ${id}` }]);
  }
  await asBigInt.query('DELETE FROM js_orders WHERE id = ANY($1::bigint[])', [edges]);
});

test("the README's JSON-safe forms arrive exactly; the naive forms do not", async () => {
  await asString.query("INSERT INTO js_orders (item) SELECT 'bulk ' || g FROM generate_series(1, 200) g");
  const exact = (await asString.query('SELECT id FROM js_orders ORDER BY id')).rows.map((r) => r.id);
  assert.ok(exact.length >= 200);
  assert.ok(exact.every((id) => BigInt(id) > TWO_TO_53), 'every id is above 2^53');

  // JSON-safe, as the README writes it: the id as text, or snowflake_encode.
  const safe = await asString.query(`
      SELECT json_build_object('id', id::text, 'public_id', snowflake_encode(id), 'item', item) AS j
      FROM js_orders ORDER BY id`);
  const viaText = safe.rows.map((r) => r.j.id);
  assert.deepEqual(viaText, exact, 'json_build_object(id::text): every id exact');
  for (const r of safe.rows.slice(0, 20)) {
    const found = await asString.query('SELECT id FROM js_orders WHERE id = snowflake_decode($1)', [r.j.public_id]);
    assert.equal(found.rows[0].id, r.j.id, 'snowflake_encode form decodes back to the same row');
  }

  // Naive: the id as a JSON number (JSON.parse makes it a double).
  const naive = await asString.query(`SELECT json_build_object('id', id) AS j, to_json(id) AS bare
                                      FROM js_orders ORDER BY id`);
  const naiveIds = naive.rows.map((r) => r.j.id);
  assert.ok(naiveIds.every((n) => typeof n === 'number' && !Number.isSafeInteger(n)),
    'every naive id is a Number past the safe-integer range');
  const wrong = naiveIds.filter((n, i) => BigInt(n) !== BigInt(exact[i])).length;
  const wrongBare = naive.rows.filter((r, i) => BigInt(r.bare) !== BigInt(exact[i])).length;
  const wrongText = naiveIds.filter((n, i) => String(n) !== exact[i]).length;
  console.log(`# naive JSON number: ${wrong} of ${exact.length} ids changed value, ` +
              `${wrongText} print differently; to_json: ${wrongBare} changed`);
  assert.ok(wrong > 0 && wrongBare > 0, 'the naive JSON form changes ids');
  // A changed id, sent back as the key, does not find its row (it finds
  // none, or another row: ids made in one millisecond are consecutive, so
  // the rounded value can be another row's id).
  const i = naiveIds.findIndex((n, k) => BigInt(n) !== BigInt(exact[k]));
  const lookup = await asString.query('SELECT id FROM js_orders WHERE id = $1', [String(naiveIds[i])]);
  assert.ok(lookup.rows.every((r) => r.id !== exact[i]),
    `naive id ${naiveIds[i]} (really ${exact[i]}) does not find its row`);

  // The README's example, exactly: {"id": 910499571847892992} comes back as 910499571847893000.
  const readme = await asString.query("SELECT json_build_object('id', 910499571847892992::bigint) AS j");
  assert.equal(String(readme.rows[0].j.id), '910499571847893000');
  assert.notEqual(String(readme.rows[0].j.id), '910499571847892992');

  // int8 parsed as Number: the same loss.
  const num = (await asNumber.query('SELECT id FROM js_orders ORDER BY id')).rows.map((r) => r.id);
  assert.ok(num.filter((n, k) => BigInt(n) !== BigInt(exact[k])).length > 0, 'Number parser changes ids');
  assert.equal((await asNumber.query('SELECT 9007199254740993::bigint AS id')).rows[0].id, 9007199254740992);
});
