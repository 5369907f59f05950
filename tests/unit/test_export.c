/*
 * test_export.c -- the export writers (consumer/kc_export.c):
 * kdt-extract --format=json|perfetto|html on a known region image.
 *
 * The image is made the way kdt.ko makes one: a D program is compiled
 * with dc_compile(), loaded with dof_load(), given a 2-CPU region with
 * aggregation buffers (common/rgn_write.c), and its probes are fired by
 * hand through the ECB runner (common/ecb.c) at chosen timestamps:
 *
 *   cpu 0:  1000 initcall_start  1500 fbt entry  2500 fbt return
 *           3000 initcall_finish 5000 fbt entry (never returns)
 *           8000 initcall_finish (closes cpu 1's start: a migration)
 *   cpu 1:  4000 fbt entry  6000 fbt return  7000 initcall_start
 *           9000 BEGIN, whose clause faults (an ERROR record)
 *
 * so the slice convention of kc_export.h must give exactly five slices:
 * foo_init [1000, 3000] and do_one_initcall [1500, 2500] on cpu 0,
 * do_one_initcall [4000, 6000] on cpu 1, do_one_initcall [5000, 9000]
 * unfinished on cpu 0, bar_init [7000, 8000] on cpu 1 ending on cpu 0.
 * A second image has two slices that cross on one cpu: the second must
 * go to an overlap track (complete events on one track must nest).
 * The image is written to a file and run through cd_extract_main() (the
 * whole kdt-extract command line); each output is checked by Python's
 * json module or html.parser with the expected objects, events and
 * elements, and text output must stay what it was without --format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "rgn.h"
#include "agg.h"
#include "ecb.h"
#include "crashdump/cd.h"

#define TX_RGNSIZE	(1024 * 1024)
#define TX_NPROBES	7

static const char tx_prog[] =
    "fbt::do_one_initcall:entry { trace(arg0); }\n"
    "fbt::do_one_initcall:return { printf(\"ret %d\", arg1);"
    " @lat = quantize(arg1); }\n"
    "sdt:initcall::initcall_start { trace(arg0 == 1 ? \"foo_init\" :"
    " \"bar_init\"); }\n"
    "sdt:initcall::initcall_finish { trace(arg0);"
    " @calls[\"initcalls\"] = count();"
    " @rets[probename, arg0] = sum(arg0); }\n"
    "BEGIN { trace(*(int *)8); }\n";

struct tx_probe {
	const char	*p_prov, *p_mod, *p_func, *p_name;
	uint32_t	p_kind;
};

static const struct tx_probe tx_probes[TX_NPROBES] = {
	{ "dtrace", "", "", "BEGIN", ECB_PK_BEGIN },
	{ "dtrace", "", "", "END", ECB_PK_END },
	{ "dtrace", "", "", "ERROR", ECB_PK_ERROR },
	{ "fbt", "kernel", "do_one_initcall", "entry", ECB_PK_OTHER },
	{ "fbt", "kernel", "do_one_initcall", "return", ECB_PK_OTHER },
	{ "sdt", "initcall", "", "initcall_start", ECB_PK_OTHER },
	{ "sdt", "initcall", "", "initcall_finish", ECB_PK_OTHER },
};

struct tx {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	struct ecb_state *t_es;
	uint8_t		*t_rgn;
	struct ecb_probe t_probes[TX_NPROBES];
	struct ecb_ref	t_refs[TX_NPROBES][8];
};

static int
tx_match(const char *pat, const char *s)
{
	return pat[0] == '\0' || strcmp(pat, s) == 0;
}

/* Each ECB to the probe its description names; EPID = ECB index + 1. */
static uint32_t
tx_probe_of(const struct dof_pdesc *pd)
{
	uint32_t p;

	for (p = 0; p < TX_NPROBES; p++)
		if (tx_match(pd->lp_prov, tx_probes[p].p_prov) &&
		    tx_match(pd->lp_mod, tx_probes[p].p_mod) &&
		    tx_match(pd->lp_func, tx_probes[p].p_func) &&
		    tx_match(pd->lp_name, tx_probes[p].p_name))
			return p;
	ck_abort_msg("no probe for %s:%s:%s:%s", pd->lp_prov, pd->lp_mod,
	    pd->lp_func, pd->lp_name);
	return 0;
}

static void
tx_region(struct tx *t)
{
	struct rgn_params rp;
	struct kdt_err ke;
	uint32_t i, p;

	t->t_rgn = aligned_alloc(4096, TX_RGNSIZE);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, TX_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = 0x20000000;
	rp.rp_ncpu = 2;
	rp.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	rp.rp_probe_cap = 16;
	rp.rp_epid_cap = 16;
	rp.rp_aggsize = 64 * 1024;
	rp.rp_flags = RGN_F_ANON;
	rp.rp_release = "6.1.0-kt-export";
	memcpy(rp.rp_bootid, "\x01\x23\x45\x67\x89\xab\xcd\xef"
	    "\xfe\xdc\xba\x98\x76\x54\x32\x10", 16);
	rp.rp_dof = t->t_den->den_dof;
	rp.rp_dofsz = t->t_den->den_dofsz;
	ck_assert_int_eq(rgn_init(t->t_rgn, TX_RGNSIZE, &rp, &ke), 0);
	for (p = 0; p < TX_NPROBES; p++)
		ck_assert_int_eq(rgn_add_probe(t->t_rgn, p + 1,
		    tx_probes[p].p_prov, tx_probes[p].p_mod,
		    tx_probes[p].p_func, tx_probes[p].p_name, &ke), 0);
	for (i = 0; i < t->t_den->den_necbs; i++) {
		p = tx_probe_of(&t->t_den->den_ecbs[i].le_pdesc);
		ck_assert_int_eq(rgn_add_epid(t->t_rgn, i + 1, p + 1, i,
		    t->t_den->den_ecbs[i].le_size, &ke), 0);
		t->t_refs[p][t->t_probes[p].ep_necbs].er_ecb = i;
		t->t_refs[p][t->t_probes[p].ep_necbs].er_epid = i + 1;
		t->t_probes[p].ep_necbs++;
	}
}

static void
tx_setup(struct tx *t)
{
	struct dc_opts opts;
	struct ecb_params p;
	struct kdt_err ke;
	uint32_t i;

	memset(t, 0, sizeof (*t));
	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(tx_prog, strlen(tx_prog), "t.d", &opts,
	    &t->t_out) == 0, "%s", t->t_out.dco_diag);
	ck_assert_int_eq(dof_load(t->t_out.dco_dof, t->t_out.dco_dofsz,
	    &t->t_den, &ke), 0);
	for (i = 0; i < TX_NPROBES; i++) {
		t->t_probes[i].ep_id = i + 1;
		t->t_probes[i].ep_kind = tx_probes[i].p_kind;
		t->t_probes[i].ep_prov = tx_probes[i].p_prov;
		t->t_probes[i].ep_mod = tx_probes[i].p_mod;
		t->t_probes[i].ep_func = tx_probes[i].p_func;
		t->t_probes[i].ep_name = tx_probes[i].p_name;
		t->t_probes[i].ep_ecbs = t->t_refs[i];
	}
	tx_region(t);
	ecb_params_init(&p, t->t_den, 2);
	p.ep_policy = DTRACEOPT_BUFPOLICY_RING;
	p.ep_user = 1;
	ck_assert_int_eq(ecb_create(t->t_den, &p, &t->t_es, &ke), 0);
	ecb_set_region(t->t_es, t->t_rgn);
	ecb_set_aggbufs(t->t_es, t->t_rgn);
	ecb_set_error_probe(t->t_es, &t->t_probes[2]);
	ecb_set_state(t->t_es, ECB_ST_ACTIVE);
	kc_env_clear_readable();	/* probename etc. read the names */
	for (i = 0; i < TX_NPROBES; i++) {
		ck_assert_int_eq(kc_env_add_readable(tx_probes[i].p_prov,
		    strlen(tx_probes[i].p_prov) + 1), 0);
		ck_assert_int_eq(kc_env_add_readable(tx_probes[i].p_name,
		    strlen(tx_probes[i].p_name) + 1), 0);
	}
}

static void
tx_fire(struct tx *t, uint32_t probe, uint32_t cpu, uint64_t ts,
    uint64_t a0, uint64_t a1)
{
	uint64_t args[DIF_NARGS] = { a0, a1 };

	ecb_fire(t->t_es, &t->t_probes[probe], cpu, args, ts);
}

struct tx_firing {
	uint32_t	f_probe, f_cpu;
	uint64_t	f_ts, f_a0, f_a1;
};

/* The scenario of the header comment. */
static const struct tx_firing tx_main[] = {
	{ 5, 0, 1000, 1, 0 },			/* initcall_start foo */
	{ 3, 0, 1500, 0xffffffff81000000ULL, 0 },
	{ 4, 0, 2500, 0, 0 },			/* return 0 */
	{ 6, 0, 3000, 0, 0 },			/* finish, ret 0 */
	{ 3, 1, 4000, 0xffffffff81000000ULL, 0 },
	{ 3, 0, 5000, 0xffffffff81000000ULL, 0 },
	{ 4, 1, 6000, 0, 12 },			/* return 12 */
	{ 5, 1, 7000, 2, 0 },			/* initcall_start bar */
	{ 6, 0, 8000, 19, 0 },			/* finish, ret 19 */
	{ 0, 1, 9000, 0, 0 },			/* BEGIN: faults */
};

/* Fire "n" firings, write the region to "path" as a raw image file. */
static void
tx_image_of(const char *path, const struct tx_firing *fs, uint32_t n)
{
	struct tx t;
	uint32_t i;
	FILE *f;

	tx_setup(&t);
	for (i = 0; i < n; i++)
		tx_fire(&t, fs[i].f_probe, fs[i].f_cpu, fs[i].f_ts,
		    fs[i].f_a0, fs[i].f_a1);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(t.t_rgn, 1, TX_RGNSIZE, f), TX_RGNSIZE);
	fclose(f);
	ecb_destroy(t.t_es);
	dof_free(t.t_den);
	dc_out_free(&t.t_out);
	free(t.t_rgn);
}

static void
tx_image(const char *path)
{
	tx_image_of(path, tx_main, sizeof (tx_main) / sizeof (tx_main[0]));
}

static char tx_dir[64];

/* Run kdt-extract on the image with "fmt" (NULL: none) into "name". */
static int
tx_extract(const char *img, const char *fmt, const char *name, char *path,
    size_t sz)
{
	char *argv[5] = { "kdt-extract", (char *)img, NULL, NULL, NULL };
	FILE *out, *err;
	int argc = 2, rv;

	if (fmt != NULL)
		argv[argc++] = (char *)fmt;
	snprintf(path, sz, "%s/%s", tx_dir, name);
	out = fopen(path, "w");
	err = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(out);
	rv = cd_extract_main(argc, argv, out, err);
	fclose(out);
	fclose(err);
	return rv;
}

/* Run a Python check over "path"; 0 when it passes. */
static int
tx_python(const char *script, const char *path)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof (cmd), "python3 - '%s'", path);
	p = popen(cmd, "w");
	ck_assert_ptr_nonnull(p);
	fputs(script, p);
	return pclose(p);
}

static void
tx_setdir(void)
{
	snprintf(tx_dir, sizeof (tx_dir), "/tmp/kdt-test-export-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tx_dir));
}

static void
tx_rmdir(void)
{
	char cmd[128];

	if (getenv("KT_KEEP") != NULL)	/* keep the outputs to look at */
		return;
	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", tx_dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char tx_json_py[] =
"import json, sys\n"
"objs = [json.loads(l) for l in open(sys.argv[1])]\n"
"src = objs[0]\n"
"assert src['type'] == 'source' and src['schema'] == 'kdt-json/1', src\n"
"assert src['release'] == '6.1.0-kt-export' and src['ncpu'] == 2, src\n"
"assert src['boot_id'] == '0123456789abcdeffedcba9876543210', src\n"
"assert src['region_phys'] is None and src['policy'] == 'ring', src\n"
"assert src['anonymous'] is True, src\n"
"recs = [o for o in objs if o['type'] == 'record']\n"
"assert len(recs) == 9, len(recs)\n"
"assert [r['cpu'] for r in recs] == [0] * 6 + [1] * 3, recs\n"
"ts0 = [r['timestamp'] for r in recs if r['cpu'] == 0]\n"
"assert ts0 == [1000, 1500, 2500, 3000, 5000, 8000], ts0\n"
"ret = [r for r in recs if r['probe'] == 'fbt:kernel:do_one_initcall:return']\n"
"assert len(ret) == 2, ret\n"
"d = ret[1]['data']\n"
"assert d[0]['action'] == 'printf' and d[0]['format'] == 'ret %d', d\n"
"assert d[0]['type'] == 'int' and d[0]['value'] == 12, d\n"
"assert ret[1]['text'].endswith('do_one_initcall:return ret 12\\n'), ret[1]\n"
"st = [r for r in recs if r['probe'].endswith('initcall_start')]\n"
"assert [r['data'][0]['value'] for r in st] == ['foo_init', 'bar_init'], st\n"
"assert st[0]['data'][0]['type'] == 'string', st\n"
"ent = [r for r in recs if r['probe'].endswith(':entry')]\n"
"assert ent[0]['data'][0]['value'] == 0xffffffff81000000 - (1 << 64), ent[0]\n"
"f = [o for o in objs if o['type'] == 'fault']\n"
"assert len(f) == 1 and f[0]['cpu'] == 1 and f[0]['fault'] == 1, f\n"
"assert f[0]['probe'] == 'dtrace:::BEGIN' and f[0]['addr'] == 8, f\n"
"assert 'error on enabled probe ID' in f[0]['text'], f\n"
"aggs = [o for o in objs if o['type'] == 'aggregation']\n"
"cnt = [a for a in aggs if a['function'] == 'count']\n"
"assert len(cnt) == 1 and cnt[0]['value'] == 2, cnt\n"
"assert cnt[0]['keys'][0]['value'] == 'initcalls', cnt\n"
"sums = sorted((a['keys'][1]['value'], a['value']) for a in aggs if a['function'] == 'sum')\n"
"assert sums == [(0, 0), (19, 19)], sums\n"
"assert all(a['keys'][0]['value'] == 'initcall_finish' for a in aggs if a['function'] == 'sum')\n"
"q = [a for a in aggs if a['function'] == 'quantize']\n"
"assert len(q) == 1 and q[0]['total'] == 2 and q[0]['keys'] == [], q\n"
"assert [(b['lower'], b['count']) for b in q[0]['buckets']] == [(0, 1), (8, 1)], q\n"
"pa = [o for o in objs if o['type'] == 'printa']\n"
"assert len(pa) == 3, pa\n"
"assert any('initcalls' in p['text'] and '2' in p['text'] for p in pa), pa\n"
"assert any('Distribution' in p['text'] for p in pa), pa\n"
"end = objs[-1]\n"
"assert end == {'type': 'end', 'records': 9, 'faults': 1, 'torn': 0, 'drops': 0, 'aggregation_entries': 4}, end\n"
"errs = [o for o in objs if o['type'] == 'errors']\n"
"assert len(errs) == 1 and errs[0]['cpu'] == 1 and errs[0]['count'] == 1, errs\n";

static const char tx_perfetto_py[] =
"import json, sys\n"
"doc = json.load(open(sys.argv[1]))\n"
"ev = doc['traceEvents']\n"
"assert doc['otherData']['release'] == '6.1.0-kt-export', doc['otherData']\n"
"names = {(e['tid'], e['args']['name']) for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
"assert names == {(1, 'CPU 0'), (2, 'CPU 1')}, names\n"
"assert all(e['pid'] == 1 for e in ev), ev\n"
"sl = sorted((e['ts'], e['dur'], e['tid'], e['name'], e['args'].get('unfinished', False), e['args'].get('end_cpu')) for e in ev if e['ph'] == 'X')\n"
"want = [(1.0, 2.0, 1, 'foo_init', False, None),\n"
"        (1.5, 1.0, 1, 'do_one_initcall', False, None),\n"
"        (4.0, 2.0, 2, 'do_one_initcall', False, None),\n"
"        (5.0, 4.0, 1, 'do_one_initcall', True, None),\n"
"        (7.0, 1.0, 2, 'bar_init', False, 0)]\n"
"assert sl == want, sl\n"
"inst = [e for e in ev if e['ph'] == 'i' and e['s'] == 't']\n"
"assert len(inst) == 10, len(inst)\n"
"assert sum(1 for e in inst if e['cat'] == 'fault') == 1, inst\n"
"r = [e for e in inst if e['name'] == 'fbt:kernel:do_one_initcall:return']\n"
"assert len(r) == 2 and 'ret 12' in r[1]['args']['text'], r\n"
"c = [e for e in ev if e['ph'] == 'C']\n"
"assert len(c) == 6, c\n"
"cnt = [e for e in c if e['name'] == '@2 count()' or e['name'].endswith('count()')]\n"
"assert [e['args'] for e in cnt] == [{'initcalls': 0}, {'initcalls': 2}], cnt\n"
"assert cnt[0]['ts'] == 1.0 and cnt[1]['ts'] == 9.0, cnt\n"
"qs = [e for e in c if e['name'].endswith('quantize()')]\n"
"assert qs[1]['args'] == {'total': 2}, qs\n"
"g = [e for e in ev if e['ph'] == 'i' and e['s'] == 'g']\n"
"assert any('error' in e['name'] and 'CPU 1' in e['name'] for e in g), g\n";

static const char tx_html_py[] =
"import sys\n"
"from html.parser import HTMLParser\n"
"class P(HTMLParser):\n"
"    def __init__(s):\n"
"        super().__init__(); s.tags = []; s.stack = []; s.text = ''\n"
"    def handle_starttag(s, tag, a):\n"
"        s.tags.append((tag, dict(a)))\n"
"    def handle_data(s, d):\n"
"        s.text += d\n"
"p = P(); doc = open(sys.argv[1]).read(); p.feed(doc)\n"
"assert doc.startswith('<!DOCTYPE html>') and 'http://' not in doc.replace('http://www.w3.org/2000/svg', ''), 'external reference'\n"
"assert 'src=' not in doc and '<link' not in doc, 'external resource'\n"
"def find(tag, **kw):\n"
"    return [a for t, a in p.tags if t == tag and all(kw[k] in (a.get(k) or '').split() or a.get(k) == kw[k] for k in kw)]\n"
"assert len(find('svg', id='kdt-timeline')) == 1\n"
"assert len(find('rect', **{'class': 'lane'})) == 2\n"
"sl = find('rect', **{'class': 'slice'})\n"
"assert sorted(a['data-name'] for a in sl) == ['bar_init', 'do_one_initcall', 'do_one_initcall', 'do_one_initcall', 'foo_init'], sl\n"
"assert len(find('rect', **{'class': 'unfinished'})) == 1\n"
"assert len(find('line', **{'class': 'rec'})) == 10\n"
"assert len(find('div', **{'class': 'agg'})) == 3\n"
"assert len(find('svg', **{'class': 'hist'})) == 1\n"
"assert len(find('svg', **{'class': 'bars'})) == 2\n"
"assert len(find('table', id='kdt-records')) == 1\n"
"assert len(find('table', id='kdt-slices')) == 1\n"
"sl_rows = doc[doc.index('id=\"kdt-slices\"'):].split('</table>')[0].count('<tr>')\n"
"assert sl_rows == 6, sl_rows\n"
"first = doc[doc.index('id=\"kdt-slices\"'):].split('<tr>')[2]\n"
"assert '<td>do_one_initcall</td><td>0</td>' in first and '(unfinished)' in first, first\n"
"assert len(find('tr')) >= 17\n"
"assert 'ret 12' in p.text and '6.1.0-kt-export' in p.text\n"
"assert 'error on enabled probe ID' in p.text\n";

START_TEST(test_json_lines_parse_with_the_expected_objects)
{
	char img[128], path[128];

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image(img);
	ck_assert_int_eq(tx_extract(img, "--format=json", "out.json", path,
	    sizeof (path)), 0);
	ck_assert_int_eq(tx_python(tx_json_py, path), 0);
	tx_rmdir();
}
END_TEST

START_TEST(test_perfetto_has_slices_instants_counters)
{
	char img[128], path[128];

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image(img);
	ck_assert_int_eq(tx_extract(img, "--format=perfetto", "out.trace",
	    path, sizeof (path)), 0);
	ck_assert_int_eq(tx_python(tx_perfetto_py, path), 0);
	tx_rmdir();
}
END_TEST

START_TEST(test_html_report_has_timeline_and_charts)
{
	char img[128], path[128];

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image(img);
	ck_assert_int_eq(tx_extract(img, "--format=html", "out.html", path,
	    sizeof (path)), 0);
	ck_assert_int_eq(tx_python(tx_html_py, path), 0);
	tx_rmdir();
}
END_TEST

static char *
tx_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = calloc(1, 1 << 20);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_lt(fread(b, 1, (1 << 20) - 1, f), (1 << 20) - 1);
	fclose(f);
	return b;
}

START_TEST(test_text_stays_the_default)
{
	char img[128], p1[128], p2[128];
	char *a, *b;

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image(img);
	ck_assert_int_eq(tx_extract(img, NULL, "plain.txt", p1,
	    sizeof (p1)), 0);
	ck_assert_int_eq(tx_extract(img, "--format=text", "text.txt", p2,
	    sizeof (p2)), 0);
	a = tx_slurp(p1);
	b = tx_slurp(p2);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "do_one_initcall:return ret 12"));
	free(a);
	free(b);
	tx_rmdir();
}
END_TEST

START_TEST(test_merge_json_is_in_time_order)
{
	char *argv[] = { "kdt-extract", NULL, "--merge", "--format", "json",
	    NULL };
	char img[128], path[128];
	FILE *out, *err;

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image(img);
	argv[1] = img;
	snprintf(path, sizeof (path), "%s/m.json", tx_dir);
	out = fopen(path, "w");
	err = fopen("/dev/null", "w");
	ck_assert_int_eq(cd_extract_main(5, argv, out, err), 0);
	fclose(out);
	fclose(err);
	ck_assert_int_eq(tx_python("import json, sys\n"
	    "o = [json.loads(l) for l in open(sys.argv[1])]\n"
	    "ts = [x['timestamp'] for x in o if x['type'] in ('record', 'fault')]\n"
	    "assert ts == [1000, 1500, 2500, 3000, 4000, 5000, 6000, 7000, 8000, 9000], ts\n",
	    path), 0);
	tx_rmdir();
}
END_TEST

/*
 * Slices of different keys that cross on one cpu: do_one_initcall
 * [100, 300] and foo_init [200, 400].  Complete events on one track must
 * nest, so the second goes to the cpu's first overlap track.
 */
START_TEST(test_crossing_slices_get_an_overlap_track)
{
	static const struct tx_firing fs[] = {
		{ 3, 0, 100, 0xffffffff81000000ULL, 0 },
		{ 5, 0, 200, 1, 0 },
		{ 4, 0, 300, 0, 0 },
		{ 6, 0, 400, 0, 0 },
	};
	char img[128], path[128];

	tx_setdir();
	snprintf(img, sizeof (img), "%s/region.img", tx_dir);
	tx_image_of(img, fs, sizeof (fs) / sizeof (fs[0]));
	ck_assert_int_eq(tx_extract(img, "--format=perfetto", "x.trace", path,
	    sizeof (path)), 0);
	ck_assert_int_eq(tx_python("import json, sys\n"
	    "ev = json.load(open(sys.argv[1]))['traceEvents']\n"
	    "sl = sorted((e['ts'], e['dur'], e['tid'], e['name']) for e in ev if e['ph'] == 'X')\n"
	    "assert sl == [(0.1, 0.2, 1, 'do_one_initcall'), (0.2, 0.2, 1000001, 'foo_init')], sl\n"
	    "names = {e['tid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
	    "assert names == {1: 'CPU 0', 2: 'CPU 1', 1000001: 'CPU 0 (overlap 1)'}, names\n",
	    path), 0);
	tx_rmdir();
}
END_TEST

START_TEST(test_unknown_format_is_a_usage_error)
{
	char *argv[] = { "kdt-extract", "/nonexistent", "--format=svg", NULL };
	char *msg = NULL;
	size_t len = 0;
	FILE *out = fopen("/dev/null", "w"), *err = open_memstream(&msg, &len);

	ck_assert_int_eq(cd_extract_main(3, argv, out, err), 2);
	fclose(out);
	fclose(err);
	ck_assert_str_eq(msg, "kdt-extract: --format svg: unknown format (one of text|json|perfetto|html); see kdt-extract(1), OPTIONS\n");
	free(msg);
}
END_TEST

static Suite *
export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("formats");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_json_lines_parse_with_the_expected_objects);
	tcase_add_test(tc, test_perfetto_has_slices_instants_counters);
	tcase_add_test(tc, test_html_report_has_timeline_and_charts);
	tcase_add_test(tc, test_text_stays_the_default);
	tcase_add_test(tc, test_merge_json_is_in_time_order);
	tcase_add_test(tc, test_crossing_slices_get_an_overlap_track);
	tcase_add_test(tc, test_unknown_format_is_a_usage_error);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(export_suite)
