/*
 * test_export_specvar.c -- speculations and variables in the Perfetto
 * and HTML exports (consumer/kc_export.c; the forms are documented in
 * kc_export.h): what text and JSON print of a dead region's uncommitted
 * speculations and, with --vars, of its variables must be in the other
 * two formats as well.
 *
 * The region is made as test_rgn_specvar.c makes it (kt_specvar.h: a D
 * program compiled with dc_compile(), a region-backed state whose
 * speculations and variables live in the region, BEGIN fired by hand):
 * speculation 1 left uncommitted ("kept 5"), 2 discarded
 * ("gone 6"), 3 committed ("committed 7"); global, associative-array and
 * thread-local variables.  The outputs are parsed by Python (json; html.
 * parser) and checked: Perfetto has one "speculation" instant for the
 * uncommitted record at its time on its CPU's track, with its text, and
 * with --vars one "variable" instant per variable whose args carry the
 * variable's JSON object (same count and values as --format=json
 * prints); HTML has table#kdt-speculations with the one record and, with
 * --vars, table#kdt-variables with one row per variable and the values;
 * without --vars neither has variables.  Nothing goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dif.h"
#include "dif_vm.h"
#include "rgn.h"
#include "spec.h"
#include "ecb.h"
#include "kt_specvar.h"

/* The region in format fmt (KC_FORMAT_*) into "path"; stderr to *err. */
static int
ts_export(const struct ts *t, uint32_t fmt, uint32_t flags,
    const char *path, char **err)
{
	struct kc_opts ko;
	size_t el;
	FILE *o, *e;
	int rv;

	memset(&ko, 0, sizeof (ko));
	ko.ko_prog = "kdt-extract";
	ko.ko_flags = flags | KC_F_PARTIAL;
	ko.ko_format = fmt;
	o = fopen(path, "w");
	e = open_memstream(err, &el);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(e);
	rv = kc_print_region_opts(t->t_rgn, t->t_size, RGN_PHYS_ANY, "img",
	    o, e, &ko);
	fclose(o);
	fclose(e);
	return rv;
}

static int
ts_python(const char *script, const char *a1, const char *a2,
    const char *a3)
{
	char cmd[640];
	FILE *p;

	snprintf(cmd, sizeof (cmd), "python3 - '%s' '%s' '%s'", a1, a2, a3);
	p = popen(cmd, "w");
	ck_assert_ptr_nonnull(p);
	fputs(script, p);
	return pclose(p);
}

/* argv: the Perfetto file, the JSON lines file, "vars" or "novars" */
static const char ts_perfetto_py[] =
"import json, sys\n"
"doc = json.load(open(sys.argv[1]))\n"
"js = [json.loads(l) for l in open(sys.argv[2])]\n"
"vars = sys.argv[3] == 'vars'\n"
"ev = doc['traceEvents']\n"
"sp = [e for e in ev if e.get('cat') == 'speculation']\n"
"jsp = [o for o in js if o['type'] == 'speculation']\n"
"assert len(sp) == 1 and len(jsp) == 1, (sp, jsp)\n"
"e = sp[0]\n"
"assert e['ph'] == 'i' and e['s'] == 't' and e['tid'] == jsp[0]['cpu'] + 1, e\n"
"assert abs(e['ts'] - jsp[0]['timestamp'] / 1000.0) < 1e-9, e\n"
"assert e['name'] == 'speculation 1 (uncommitted)', e\n"
"a = e['args']\n"
"assert a['id'] == 1 and a['state'] == 'uncommitted' and a['text'] == 'kept 5\\n', a\n"
"assert a['text'] == jsp[0]['text'] and a['probe'] == 'dtrace:::BEGIN', a\n"
"assert not [e for e in ev if 'gone' in json.dumps(e)], 'a discarded speculation'\n"
"va = [e for e in ev if e.get('cat') == 'variable']\n"
"jva = [o for o in js if o['type'] == 'variable']\n"
"if not vars:\n"
"    assert va == [] and jva == [], (va, jva)\n"
"    sys.exit(0)\n"
"assert len(va) == len(jva) == 9, (len(va), len(jva))\n"
"assert [e['args']['variable'] for e in va] == jva, 'args differ from the JSON objects'\n"
"assert all(e['ph'] == 'i' and e['s'] == 'g' for e in va)\n"
"names = [e['name'] for e in va]\n"
"assert 'global g (int32) = 42' in names and 'global s (string) = \"hello\"' in names, names\n"
"assert 'array a[\"foo\", 3] (int32) = 9' in names and 'array b[5] (string) = \"five\"' in names, names\n"
"assert [n for n in names if n.startswith('self->t (int32) tid ') and n.endswith(' = 7')], names\n";

/* argv: the HTML file, "vars" or "novars", unused */
static const char ts_html_py[] =
"import sys\n"
"from html.parser import HTMLParser\n"
"class P(HTMLParser):\n"
"    def __init__(s):\n"
"        super().__init__(); s.table = None; s.rows = {}; s.cell = None\n"
"    def handle_starttag(s, tag, a):\n"
"        a = dict(a)\n"
"        if tag == 'table':\n"
"            s.table = a.get('id'); s.rows[s.table] = []\n"
"        elif tag == 'tr' and s.table:\n"
"            s.rows[s.table].append([])\n"
"        elif tag == 'td' and s.table:\n"
"            s.cell = ''\n"
"    def handle_endtag(s, tag):\n"
"        if tag == 'table':\n"
"            s.table = None\n"
"        elif tag == 'td' and s.table:\n"
"            s.rows[s.table][-1].append(s.cell); s.cell = None\n"
"    def handle_data(s, d):\n"
"        if s.cell is not None:\n"
"            s.cell += d\n"
"doc = open(sys.argv[1]).read()\n"
"p = P(); p.feed(doc)\n"
"vars = sys.argv[2] == 'vars'\n"
"assert '<h2>Speculations</h2>' in doc\n"
"sp = p.rows.get('kdt-speculations')\n"
"assert sp is not None and len(sp) == 2, sp\n"
"r = sp[1]\n"
"assert r[0] == '1' and r[1] == 'uncommitted' and r[4] == 'dtrace:::BEGIN' and r[5].strip() == 'kept 5', r\n"
"assert 'gone 6' not in doc\n"
"va = p.rows.get('kdt-variables')\n"
"if not vars:\n"
"    assert va is None and '<h2>Variables</h2>' not in doc\n"
"    sys.exit(0)\n"
"assert va is not None and len(va) == 10, va\n"
"rows = [tuple(x) for x in va[1:]]\n"
"assert ('global', 'g (int32) = 42') in rows and ('global', 's (string) = \"hello\"') in rows, rows\n"
"assert ('array', 'a[\"bar\", -1] (int32) = 11') in rows and ('array', 'b[5] (string) = \"five\"') in rows, rows\n"
"assert [x for x in rows if x[0] == 'thread' and x[1].startswith('self->t (int32) tid ')], rows\n";

START_TEST(test_perfetto_and_html_carry_specs_and_vars)
{
	char dir[64], pf[128], js[128], ht[128], cmd[128], *err;
	const char *mode[2] = { "novars", "vars" };
	struct ts t;
	int v;

	snprintf(dir, sizeof (dir), "/tmp/kdt-test-xspec-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pf, sizeof (pf), "%s/out.trace", dir);
	snprintf(js, sizeof (js), "%s/out.json", dir);
	snprintf(ht, sizeof (ht), "%s/out.html", dir);
	for (v = 0; v < 2; v++) {
		/* a fresh region per mode: the runs are independent */
		ts_setup(&t, ts_src);
		ck_assert_int_eq(ts_export(&t, KC_FORMAT_JSON,
		    v ? KC_F_VARS : 0, js, &err), 0);
		ck_assert_str_eq(err, "");
		free(err);
		ck_assert_int_eq(ts_export(&t, KC_FORMAT_PERFETTO,
		    v ? KC_F_VARS : 0, pf, &err), 0);
		ck_assert_str_eq(err, "");
		free(err);
		ck_assert_int_eq(ts_export(&t, KC_FORMAT_HTML,
		    v ? KC_F_VARS : 0, ht, &err), 0);
		ck_assert_str_eq(err, "");
		free(err);
		ck_assert_msg(ts_python(ts_perfetto_py, pf, js, mode[v]) == 0,
		    "perfetto, %s: see the assertion above", mode[v]);
		ck_assert_msg(ts_python(ts_html_py, ht, mode[v], "") == 0,
		    "html, %s: see the assertion above", mode[v]);
		ts_free(&t);
	}
	if (getenv("KT_KEEP") == NULL) {
		snprintf(cmd, sizeof (cmd), "rm -rf '%s'", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

static Suite *
export_specvar_suite(void)
{
	Suite *s = suite_create("export_specvar");
	TCase *tc = tcase_create("export");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_perfetto_and_html_carry_specs_and_vars);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(export_specvar_suite)
