// sql() and digits() shapes (report/stats/query_shape.h): a corpus of
// statements with the shapes pg_stat_statements would show for them.
#include "report/stats/query_shape.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace usdt::report;

TEST_CASE("sql_shape: a corpus of statements and their shapes", "[query_shape]") {
  const std::vector<std::pair<std::string, std::string>> corpus = {
      // pgbench's tpcb-like transaction (its simple protocol inlines values)
      {"UPDATE pgbench_accounts SET abalance = abalance + -4339 WHERE aid = 57262;",
       "update pgbench_accounts set abalance = abalance + $1 where aid = $2;"},
      {"SELECT abalance FROM pgbench_accounts WHERE aid = 57262;",
       "select abalance from pgbench_accounts where aid = $1;"},
      {"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (7, 1, 57262, -4339, "
       "CURRENT_TIMESTAMP);",
       "insert into pgbench_history(tid, bid, aid, delta, mtime) values ($1, $2, $3, $4, "
       "current_timestamp);"},
      {"BEGIN;", "begin;"},
      {"END;", "end;"},
      // whitespace, case of keywords and names
      {"select  *\n\tFROM   T1  where X=1", "select * from t1 where x = $1"},
      {"SELECT * FROM t1 WHERE x = 2", "select * from t1 where x = $1"},
      // quotes with escapes
      {"select 'it''s'", "select $1"},
      {"select E'a\\'b', 'c'", "select $1, $2"},
      {"select e'\\\\', x'1F', b'101', n'nat', U&'d\\0061t'", "select $1, $2, $3, $4, $5"},
      {"select \"Mixed Case\".\"Col\" from \"T\"", "select \"Mixed Case\".\"Col\" from \"T\""},
      // dollar quoting
      {"select $$a 'quoted' $$ || $tag$x$$y$tag$", "select $1 || $2"},
      // comments
      {"select 1 -- the answer\n, 2 /* outer /* nested */ still */ from t", "select $1, $2 from t"},
      // negative numbers, subtraction, exponents, decimals, hex
      {"select -1, 3 - 1, a-1, a =-5, .5, 1.5e-3, 0x1F, 1_000",
       "select $1, $2 - $3, a - $4, a = $5, $6, $7, $8, $9"},
      // IN lists and arrays of constants fold; lists with expressions do not
      {"SELECT * FROM t WHERE id IN (1, 2, 3) AND k = 4",
       "select * from t where id in ($1 /*, ... */) and k = $2"},
      {"select * from t where id in (1,-2)", "select * from t where id in ($1 /*, ... */)"},
      {"select * from t where id in (1, x)", "select * from t where id in ($1, x)"},
      {"select * from t where id = any(array[1, 2])",
       "select * from t where id = any (array[$1 /*, ... */])"},
      // casts and typed literals
      {"select '1'::int, cast(2 as bigint), interval '1 day', x :: text",
       "select $1::int, cast($2 as bigint), interval $3, x::text"},
      // identifiers that hold digits, parameters, function calls
      {"select col2, t3.c4 from tab5 where a = $1 and b = $12",
       "select col2, t3.c4 from tab5 where a = $1 and b = $2"},
      {"SELECT count(*), COUNT (*) FROM t", "select count(*), count(*) from t"},
      // true, false and null stay words
      {"select * from t where a is null and b = true",
       "select * from t where a is null and b = true"},
      // not SQL, or cut short: still a shape, never a crash
      {"", ""},
      {"select 'unterminated", "select $1"},
      {"select /* unterminated", "select"},
      {"select $tag$ never closed", "select $1"},
      {"\xff\xfe weird ; @@@", "\xff\xfe weird; @@@"},
  };
  for (const auto& [statement, shape] : corpus) {
    INFO(statement);
    CHECK(sql_shape(statement) == shape);
  }
}

TEST_CASE("sql_shape: statements of one shape group together", "[query_shape]") {
  CHECK(sql_shape("SELECT a FROM t WHERE id = 42") == sql_shape("select A from T where ID=7"));
  CHECK(sql_shape("select 1") != sql_shape("select a"));
  CHECK(sql_shape("select \"A\"") != sql_shape("select a"));
}

TEST_CASE("digits_shape folds numbers, not names", "[query_shape]") {
  CHECK(digits_shape("GET /users/123/orders/45") == "GET /users/#/orders/#");
  CHECK(digits_shape("took 1.25 ms on v2 utf8 id_7") == "took # ms on v2 utf8 id_7");
  CHECK(digits_shape("") == "");
  CHECK(digits_shape("42") == "#");
  CHECK(shape_of(KeyShape::none, "a1 2") == "a1 2");
}
