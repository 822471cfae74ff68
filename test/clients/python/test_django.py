"""Django (Debian's python3-django 5.2, psycopg2) against snowflake.

The model pattern is the one docs/adopting.md documents: its two Python blocks
(snowflake_field.py and models.py) are extracted from the page and used as
they are, as the files of a Django app.  Checked: the migration creates the
DEFAULT snowflake_nextval() key and bigint foreign keys; create(), save() and
bulk_create() return objects whose ids are set and are the ids stored; foreign
keys (bulk-created children of bulk-created parents included); lookups such as
filter(id__gte=...) and time bounds; ids above 2**53 exact.  And the claim the
page makes about the alternative: with db_default the objects bulk_create()
returns have no id.

Run by test/scripts/clients.sh with SF_PGHOST, SF_PGPORT, SF_PGDATABASE and
SF_WORKER_ID set.
"""
import os
import re
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOC = os.path.join(ROOT, "docs", "adopting.md")
TWO_TO_53 = 2 ** 53


def doc_block(name):
    """The Python block of the page marked <!-- doctest: file=NAME -->."""
    text = open(DOC, encoding="utf-8").read()
    m = re.search(r"<!-- doctest: file=%s -->\n```python\n(.*?)\n```" % re.escape(name), text, re.S)
    if not m:
        raise SystemExit(f"{DOC} has no block marked file={name}")
    return m.group(1) + "\n"


def write_app(base, name, files):
    os.makedirs(os.path.join(base, name, "migrations"))
    for path in ("__init__.py", "migrations/__init__.py"):
        open(os.path.join(base, name, path), "w").close()
    for fname, body in files.items():
        with open(os.path.join(base, name, fname), "w") as f:
            f.write(body)


APPS = tempfile.mkdtemp(prefix="sf-django-")
# The documented app, verbatim.
write_app(APPS, "shop", {"snowflake_field.py": doc_block("snowflake_field.py"),
                         "models.py": doc_block("models.py")})
# The alternative the page advises against, to show why.
write_app(APPS, "contrast", {"models.py": '''
from django.db import models


class SnowflakeNextval(models.Func):
    function = "snowflake_nextval"
    output_field = models.BigIntegerField()


class DbDefaultOrder(models.Model):
    id = models.BigIntegerField(primary_key=True, db_default=SnowflakeNextval())
    item = models.TextField()
'''})
sys.path.insert(0, APPS)

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    DATABASES={"default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["SF_PGDATABASE"],
        "HOST": os.environ["SF_PGHOST"],
        "PORT": os.environ["SF_PGPORT"],
        "USER": "postgres",
    }},
    INSTALLED_APPS=["shop", "contrast"],
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    USE_TZ=True,
)
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models.expressions import RawSQL  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

call_command("makemigrations", "shop", "contrast", verbosity=0)
call_command("migrate", verbosity=0)

from shop.models import Order, OrderLine  # noqa: E402
from contrast.models import DbDefaultOrder  # noqa: E402

WORKER_ID = int(os.environ["SF_WORKER_ID"])


def sql(query, *params):
    with connection.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall()


class DjangoTest(unittest.TestCase):
    def assertSnowflakeId(self, value):
        self.assertIsInstance(value, int)
        self.assertGreater(value, TWO_TO_53)
        self.assertEqual(sql("SELECT worker_id FROM snowflake_parse(%s)", value), [(WORKER_ID,)])

    def test_migration_makes_the_default_and_bigint_foreign_keys(self):
        cols = dict(((t, c), (ty, d)) for t, c, ty, d in sql(
            "SELECT table_name, column_name, data_type, column_default"
            " FROM information_schema.columns"
            " WHERE table_name IN ('shop_order', 'shop_orderline')"))
        self.assertEqual(cols[("shop_order", "id")], ("bigint", "snowflake_nextval()"))
        self.assertEqual(cols[("shop_orderline", "id")], ("bigint", "snowflake_nextval()"))
        self.assertEqual(cols[("shop_orderline", "order_id")], ("bigint", None))
        # No identity, no sequence: the ids are the extension's.
        self.assertEqual(sql("SELECT count(*) FROM pg_attribute WHERE attrelid = 'shop_order'::regclass"
                             " AND attidentity <> ''"), [(0,)])

    def test_create_reads_the_id_back_with_returning(self):
        with CaptureQueriesContext(connection) as q:
            order = Order.objects.create(item="tea")
        self.assertIn('RETURNING "shop_order"."id"', q.captured_queries[-1]["sql"])
        self.assertSnowflakeId(order.pk)
        self.assertEqual(Order.objects.get(pk=order.pk).item, "tea")
        self.assertEqual(sql("SELECT item FROM shop_order WHERE id = %s", order.pk), [("tea",)])

    def test_save_of_a_new_object_sets_its_id(self):
        order = Order(item="cake")
        self.assertIsNone(order.pk)
        order.save()
        self.assertSnowflakeId(order.pk)

    def test_bulk_create_sets_the_ids_of_the_returned_objects(self):
        with CaptureQueriesContext(connection) as q:
            orders = Order.objects.bulk_create([Order(item=f"bulk {i}") for i in range(200)])
        self.assertEqual(len([x for x in q.captured_queries if x["sql"].startswith("INSERT")]), 1)
        ids = [o.pk for o in orders]
        for i in ids:
            self.assertIsInstance(i, int)
        self.assertEqual(ids, sorted(ids), "ids increase on the node, in insert order")
        self.assertEqual(len(set(ids)), 200)
        self.assertSnowflakeId(ids[0])
        # Exactly the ids stored, each with its own row.
        stored = dict(sql("SELECT id, item FROM shop_order WHERE id = ANY(%s)", ids))
        self.assertEqual(stored, {o.pk: o.item for o in orders})

    def test_foreign_keys(self):
        order = Order.objects.create(item="book")
        line = OrderLine.objects.create(order=order, qty=2)
        self.assertSnowflakeId(line.pk)
        self.assertGreater(line.pk, order.pk)
        self.assertEqual(OrderLine.objects.select_related("order").get(pk=line.pk).order.item, "book")
        # Children of bulk-created parents, themselves bulk-created: needs the
        # parents' ids set by bulk_create.
        parents = Order.objects.bulk_create([Order(item=f"p{i}") for i in range(5)])
        lines = OrderLine.objects.bulk_create(
            [OrderLine(order=p, qty=q) for p in parents for q in (1, 2)])
        self.assertTrue(all(isinstance(x.pk, int) for x in lines))
        for p in parents:
            self.assertEqual(sorted(p.lines.values_list("qty", flat=True)), [1, 2])
        self.assertEqual(sql("SELECT count(*) FROM shop_orderline l JOIN shop_order o"
                             " ON o.id = l.order_id WHERE o.id = ANY(%s)", [p.pk for p in parents]),
                         [(10,)])

    def test_lookups_by_id(self):
        a, b, c = (Order.objects.create(item=x) for x in ("a", "b", "c"))
        got = list(Order.objects.filter(id__gte=b.id, id__lte=c.id).order_by("id")
                   .values_list("item", flat=True))
        self.assertEqual(got, ["b", "c"])
        self.assertEqual(Order.objects.filter(id__gt=c.id).count(), 0)
        # A time range as id bounds on the primary key.
        recent = Order.objects.filter(
            id__gte=RawSQL("snowflake_min_id(now() - interval '1 hour')", []))
        self.assertTrue(recent.filter(pk=a.pk).exists())
        self.assertEqual(Order.objects.filter(
            id__lt=RawSQL("snowflake_min_id(now() - interval '1 hour')", [])).count(), 0)

    def test_db_default_leaves_bulk_created_objects_without_ids(self):
        # Why the page does not use db_default: create() works ...
        one = DbDefaultOrder.objects.create(item="x")
        self.assertIsInstance(one.pk, int)
        # ... but bulk_create() takes the placeholder for a key and does not
        # read the ids back.
        objs = DbDefaultOrder.objects.bulk_create([DbDefaultOrder(item="y")])
        self.assertNotIsInstance(objs[0].pk, int)
        self.assertEqual(DbDefaultOrder.objects.filter(item="y").count(), 1)


if __name__ == "__main__":
    print("Django", django.get_version(), "psycopg2",
          __import__("psycopg2").__version__.split()[0])
    unittest.main(verbosity=2)
