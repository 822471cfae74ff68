"""SQLAlchemy (Debian's python3-sqlalchemy 1.4, psycopg2) against snowflake.

Models whose key is BigInteger with server_default=text("snowflake_nextval()"):
the ORM inserts through its normal unit of work, reads the server-made id back
with RETURNING, and the id round-trips exactly, above 2**53 included.  Also
the adoption path from an application: a legacy Integer (serial) model with a
foreign key, converted with snowflake_convert_column, then used through the
new mapping.

Run by test/scripts/clients.sh with SF_DSN set, e.g.
    SF_DSN='postgresql+psycopg2://postgres@/clients?host=/var/tmp/x&port=5432'
"""
import os
import unittest

from sqlalchemy import (BigInteger, Column, ForeignKey, Integer, MetaData, Table, Text,
                        create_engine, event, insert, inspect, select, text)
from sqlalchemy.orm import Session, declarative_base, relationship

TWO_TO_53 = 2 ** 53
INT64_MAX = 2 ** 63 - 1

Base = declarative_base()


class Order(Base):
    __tablename__ = "sa_orders"
    id = Column(BigInteger, primary_key=True, server_default=text("snowflake_nextval()"))
    item = Column(Text, nullable=False)
    lines = relationship("OrderLine", back_populates="order", order_by="OrderLine.id")


class OrderLine(Base):
    __tablename__ = "sa_order_lines"
    id = Column(BigInteger, primary_key=True, server_default=text("snowflake_nextval()"))
    order_id = Column(BigInteger, ForeignKey("sa_orders.id"), nullable=False)
    qty = Column(Integer, nullable=False)
    order = relationship("Order", back_populates="lines")


class SqlAlchemyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.engine = create_engine(os.environ["SF_DSN"], future=True)
        # Every statement SQLAlchemy sends, to see the RETURNING it uses.
        cls.statements = []
        event.listen(cls.engine, "before_cursor_execute",
                     lambda conn, cur, stmt, params, ctx, many: cls.statements.append(stmt))
        with cls.engine.begin() as conn:
            conn.execute(text("DROP TABLE IF EXISTS sa_order_lines, sa_orders, legacy_lines, legacy_orders"))
        Base.metadata.create_all(cls.engine)

    @classmethod
    def tearDownClass(cls):
        cls.engine.dispose()

    def test_ddl_has_the_default(self):
        cols = {c["name"]: c for c in inspect(self.engine).get_columns("sa_orders")}
        self.assertEqual(str(cols["id"]["type"]), "BIGINT")
        self.assertEqual(cols["id"]["default"], "snowflake_nextval()")

    def test_orm_insert_reads_the_id_back_with_returning(self):
        self.statements.clear()
        with Session(self.engine) as s, s.begin():
            order = Order(item="book", lines=[OrderLine(qty=1), OrderLine(qty=2)])
            s.add(order)
            s.flush()
            order_id = order.id
            line_ids = [line.id for line in order.lines]
        inserts = [st for st in self.statements if st.startswith("INSERT INTO sa_orders")]
        self.assertTrue(inserts and all("RETURNING sa_orders.id" in st for st in inserts), inserts)
        self.assertIsInstance(order_id, int)
        self.assertGreater(order_id, TWO_TO_53)
        self.assertEqual(len(line_ids), 2)
        self.assertTrue(all(lid > order_id for lid in line_ids), "ids increase on the node")
        # Exactly the id the server stored, read back by key and as text.
        with Session(self.engine) as s:
            got = s.get(Order, order_id)
            self.assertEqual(got.id, order_id)
            self.assertEqual([line.id for line in got.lines], line_ids)
            self.assertEqual(s.execute(select(text("id::text")).select_from(Order.__table__)
                                       .where(Order.id == order_id)).scalar_one(), str(order_id))
            # It decodes to this node.
            worker = s.execute(text("SELECT worker_id FROM snowflake_parse(:id)"),
                               {"id": order_id}).scalar_one()
            self.assertEqual(worker, int(os.environ.get("SF_WORKER_ID", "7")))

    def test_many_rows_distinct_and_increasing(self):
        with Session(self.engine) as s, s.begin():
            orders = [Order(item=f"bulk {i}") for i in range(500)]
            s.add_all(orders)
            s.flush()
            ids = [o.id for o in orders]
        self.assertEqual(len(set(ids)), 500)
        self.assertTrue(all(i > TWO_TO_53 for i in ids))
        with self.engine.connect() as conn:
            stored = conn.execute(select(Order.id).where(Order.item.like("bulk %"))
                                  .order_by(Order.id)).scalars().all()
        self.assertEqual(stored, sorted(ids))

    def test_core_insert_returning(self):
        table = Order.__table__
        with self.engine.begin() as conn:
            new_id = conn.execute(insert(table).values(item="core").returning(table.c.id)).scalar_one()
            self.assertGreater(new_id, TWO_TO_53)
            self.assertEqual(conn.execute(select(table.c.item).where(table.c.id == new_id)).scalar_one(),
                             "core")

    def test_explicit_ids_round_trip_exactly(self):
        # The edges of what doubles get wrong, and the largest bigint.
        ids = [TWO_TO_53 + 1, TWO_TO_53 + 3, 910499571847892993, INT64_MAX]
        with Session(self.engine) as s, s.begin():
            s.add_all([Order(id=i, item=f"explicit {i}") for i in ids])
        with Session(self.engine) as s:
            for i in ids:
                self.assertEqual(s.get(Order, i).item, f"explicit {i}")
            got = s.execute(select(Order.id).where(Order.id.in_(ids)).order_by(Order.id)).scalars().all()
        self.assertEqual(got, sorted(ids))
        with Session(self.engine) as s, s.begin():
            s.execute(Order.__table__.delete().where(Order.id.in_(ids)))

    def test_adopting_a_legacy_serial_model(self):
        # The application's old mapping: Integer keys (SERIAL) and a foreign key.
        legacy = MetaData()
        Table("legacy_orders", legacy, Column("id", Integer, primary_key=True),
              Column("item", Text, nullable=False))
        Table("legacy_lines", legacy, Column("id", Integer, primary_key=True),
              Column("order_id", Integer, ForeignKey("legacy_orders.id"), nullable=False))
        legacy.create_all(self.engine)
        with self.engine.begin() as conn:
            old = conn.execute(text("INSERT INTO legacy_orders (item) SELECT 'old ' || g "
                                    "FROM generate_series(1, 20) g RETURNING id")).scalars().all()
            conn.execute(text("INSERT INTO legacy_lines (order_id) SELECT id FROM legacy_orders"))
            self.assertEqual(old, list(range(1, 21)))
            # The converter, called like any function; a dry run first.
            dry = conn.execute(text("SELECT * FROM snowflake_convert_column(:t, :c, dry_run => true)"),
                               {"t": "legacy_orders", "c": "id"}).scalars().all()
            done = conn.execute(text("SELECT * FROM snowflake_convert_column(:t, :c)"),
                                {"t": "legacy_orders", "c": "id"}).scalars().all()
            self.assertEqual(dry, done)
            self.assertIn("ALTER TABLE public.legacy_lines ALTER COLUMN order_id TYPE bigint;", done)

        # The new mapping of the same tables.
        NewBase = declarative_base()

        class LegacyOrder(NewBase):
            __tablename__ = "legacy_orders"
            id = Column(BigInteger, primary_key=True, server_default=text("snowflake_nextval()"))
            item = Column(Text, nullable=False)

        class LegacyLine(NewBase):
            __tablename__ = "legacy_lines"
            id = Column(Integer, primary_key=True)
            order_id = Column(BigInteger, ForeignKey("legacy_orders.id"), nullable=False)

        cols = {c["name"]: c for c in inspect(self.engine).get_columns("legacy_orders")}
        self.assertEqual(str(cols["id"]["type"]), "BIGINT")
        self.assertEqual(cols["id"]["default"], "snowflake_nextval()")
        with Session(self.engine) as s, s.begin():
            o = LegacyOrder(item="new")
            s.add(o)
            s.flush()
            new_id = o.id
            s.add(LegacyLine(order_id=new_id))
        self.assertGreater(new_id, max(old))
        self.assertGreater(new_id, TWO_TO_53)
        with Session(self.engine) as s:
            self.assertEqual(s.get(LegacyOrder, 1).item, "old 1")
            joined = s.execute(select(LegacyOrder.id).join(LegacyLine, LegacyLine.order_id == LegacyOrder.id)
                               .order_by(LegacyOrder.id)).scalars().all()
        self.assertEqual(joined, old + [new_id])


if __name__ == "__main__":
    unittest.main(verbosity=2)
