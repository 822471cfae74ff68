# snowflake: PostgreSQL extension built with PGXS.
#
#   make && make install                  build and install (as root)
#   make installcheck                     pg_regress against a temporary instance
#                                         with the library preloaded (as a non-root user)
#   make installcheck-nopreload           the not-preloaded suite, its own instance
#   make unit                             the core's unit tests (no PostgreSQL needed)
#   make prove-installcheck               TAP tests (restarts, crashes, clock steps)
#   make dist                             dist/snowflake-VERSION.zip of the committed
#                                         tree (git archive of HEAD), for PGXN
#   dpkg-buildpackage -us -uc -b          Debian packages, one per PostgreSQL major
#                                         whose server headers are installed (debian/)
#   make sql-edition                      dist/snowflake_sql_pg_tle.sql and
#                                         dist/snowflake_sql.sql: the SQL edition,
#                                         for servers that load no C library
#                                         (needs no PostgreSQL)
#
# The whole suite, servers and all, is test/run-all.sh.

EXTENSION = snowflake
MODULE_big = snowflake
# The SQL scripts are made from src/sql (docs/testing.md, "Where the SQL
# lives"): the default version's install script from install.sql.in and the
# objects' sources in current/, and each older version's script (the 1.0
# install script and the updates) from its template in versions/.  They are
# build outputs, in src/sql/generated/.
EXTVERSION = $(shell sed -n "s/^default_version = '\([^']*\)'.*/\1/p" $(EXTENSION).control)
SQL_CURRENT = $(wildcard src/sql/current/*/*.sql)
SQL_VERSIONS = $(patsubst src/sql/versions/%.in,src/sql/generated/%,$(wildcard src/sql/versions/snowflake--*.sql.in))
DATA_built = src/sql/generated/snowflake--$(EXTVERSION).sql $(SQL_VERSIONS)

CORE_OBJS = $(patsubst %.cpp,%.o,$(wildcard src/core/*.cpp))
PG_OBJS = $(patsubst %.cpp,%.o,$(wildcard src/pg/*.cpp))
OBJS = $(CORE_OBJS) $(PG_OBJS)

REGRESS = parse settings nextval lastval make_id column_default status toolkit_time toolkit_codec toolkit_serial toolkit_multibyte toolkit_partition toolkit_upgrade extension_versions sql_sources registry extension_schema bad_input convert_column convert_rekey convert_upgrade time_predicates time_partitions time_hooks_safe planner_untouched citus_not_installed
REGRESS_OPTS = --temp-config=$(srcdir)/test/conf/regress.conf --temp-instance=tmp_check_regress
REGRESS_NOPRELOAD = not_preloaded

PROVE_TESTS = $(wildcard test/t/*.pl)

EXTRA_CLEAN = tmp_check_regress tmp_check_nopreload tmp_check_plans tmp_check_plans_log test/unit/core_tests src/sql/generated

PG_CONFIG ?= pg_config

# C++17, warnings on; -Wno-register because PostgreSQL's s_lock.h uses
# `register`, which C++17 removed.
PG_CXXFLAGS = -std=c++17 -Wextra -Wno-unused-parameter -Wno-register -Wno-missing-field-initializers
# PGXS links with the C compiler.  libpq: the registrar talks to the registry.
SHLIB_LINK += -lstdc++ -lpq
# The library's references to its own symbols bind within it: the id path
# calls its functions directly and reads its globals without the GOT, rather
# than through the PLT and GOT as symbols another library could interpose
# (PostgreSQL loads libraries RTLD_GLOBAL).
SHLIB_LINK += -Wl,-Bsymbolic
PG_CPPFLAGS = -I$(shell $(PG_CONFIG) --includedir)

# Debian's PGXS also compiles every .cpp to LLVM bitcode (for JIT inlining)
# with clang and without PG_CXXFLAGS; give that compile the same language
# level.  (Defined before PGXS, which only sets it if unset.)
COMPILE.cxx.bc = $(CLANG) -xc++ -std=c++17 -Wno-ignored-attributes -Wno-register $(BITCODE_CXXFLAGS) $(CPPFLAGS) -flto=thin -emit-llvm -c

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild on any header change.
HEADERS = $(wildcard src/core/*.hpp src/pg/*.hpp)
$(OBJS): $(HEADERS)
$(OBJS:.o=.bc): $(HEADERS)

src/sql/generated/snowflake--$(EXTVERSION).sql: src/sql/install.sql.in $(SQL_CURRENT) src/sql/build.sh
	@mkdir -p $(@D)
	sh src/sql/build.sh $< $@
# A released version's script keeps its text: versions/released has it.
src/sql/generated/%.sql: src/sql/versions/%.sql.in $(SQL_CURRENT) src/sql/build.sh src/sql/versions/released
	@mkdir -p $(@D)
	sh src/sql/build.sh $< $@ src/sql/versions/released

# The names of the scripts make install installs, one a line.
sql-scripts:
	@for f in $(DATA_built); do echo "$${f##*/}"; done

installcheck-nopreload:
	$(pg_regress_installcheck) --temp-config=$(srcdir)/test/conf/nopreload.conf \
		--temp-instance=tmp_check_nopreload $(REGRESS_NOPRELOAD)

# The time tests again, with every final plan in the server's log: the
# conditions the planner hooks add for plan-time pruning (location -29) are
# all taken off before a plan is made (src/pg/time_pruning.cpp).
REGRESS_PLANS = time_predicates time_partitions time_hooks_safe
installcheck-plans:
	rm -rf tmp_check_plans_log
	$(pg_regress_installcheck) $(REGRESS_OPTS:tmp_check_regress=tmp_check_plans) \
		--temp-config=$(srcdir)/test/conf/print_plans.conf $(REGRESS_PLANS)
	@plans=$$(grep -c ':planTree' tmp_check_plans_log/plans.log); \
	left=$$(grep -o ':location -29' tmp_check_plans_log/plans.log | wc -l); \
	echo "$$plans plans logged, $$left with a condition the hooks added"; \
	test "$$plans" -gt 500 && test "$$left" -eq 0

prove-installcheck:
	$(prove_installcheck)

unit:
	$(MAKE) -C test/unit run

# The source archive of a release, for PGXN: what git has at HEAD (uncommitted
# changes are not in it), as snowflake-VERSION.zip holding snowflake-VERSION/,
# VERSION being META.json's, which must be the control file's default_version
# (1.5 is 1.5.0).
DISTVERSION = $(shell perl -MJSON::PP -0777 -ne 'print decode_json($$_)->{version}' $(srcdir)/META.json)
DISTDIR ?= dist
dist:
	@case "$(DISTVERSION)" in "$(EXTVERSION)" | "$(EXTVERSION).0") ;; *) \
		echo "make dist: META.json says $(DISTVERSION), $(EXTENSION).control $(EXTVERSION)" >&2; exit 1 ;; esac
	@git -C $(srcdir) diff --quiet HEAD -- || \
		echo "make dist: uncommitted changes are not in the archive (it is made from HEAD)" >&2
	mkdir -p $(DISTDIR)
	git -C $(srcdir) archive --format=zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(abspath $(DISTDIR))/$(EXTENSION)-$(DISTVERSION).zip HEAD
	@echo "$(DISTDIR)/$(EXTENSION)-$(DISTVERSION).zip: $(EXTENSION) $(DISTVERSION) at $$(git -C $(srcdir) rev-parse --short HEAD)"

# The SQL edition (docs/managed.md): both ways to install it, made from its
# one source by sql_edition/build.sh, with the extension's version.  Update
# paths come from the edition's earlier versions, one per line in
# sql_edition/earlier-versions.
# Works without pg_config (PGXS, and its srcdir, may be missing).
SQL_EDITION_TOP := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
SQL_EDITION_VERSION ?= $(shell sed -n "s/^default_version = '\([^']*\)'.*/\1/p" $(SQL_EDITION_TOP)/$(EXTENSION).control)
SQL_EDITION_EARLIER ?= $(shell sed -e 's/\#.*//' $(SQL_EDITION_TOP)/sql_edition/earlier-versions)
sql-edition:
	sh $(SQL_EDITION_TOP)/sql_edition/build.sh $(DISTDIR) $(SQL_EDITION_VERSION) $(SQL_EDITION_EARLIER)

.PHONY: installcheck-nopreload prove-installcheck unit dist sql-edition sql-scripts
