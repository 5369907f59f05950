/*
 * json() returns the value a selector names in a JSON document, as
 * text: member names separated by '.', array indices as "[N]" (or as a
 * dotted number, as illumos scripts write "ok.0"); a string member gives
 * its contents as written (escapes kept), a number, true, false or null
 * its text, an object or an array its whole text, verbatim.
 * kdt-args: -q
 */
BEGIN
{
	this->j = strjoin("{\"pid\": 42, \"comm\": \"bash\", ",
	    "\"ok\": [\"in\", 7], ");
	this->j = strjoin(this->j,
	    "\"f\": {\"x\": -1.25e-3, \"y\": [true, false, null], ");
	this->j = strjoin(this->j, "\"z\": {\"n\" : [ 1, 2 ]}}, ");
	this->j = strjoin(this->j, "\"s\": \"a\\\"b\\\\c\\u00e9\\n\", ");
	this->j = strjoin(this->j, "\"e\": \"\", \"o\": {}, \"a\": []}");
	printf("pid [%s]\n", json(this->j, "pid"));
	printf("comm [%s]\n", json(this->j, "comm"));
	printf("ok[0] [%s]\n", json(this->j, "ok[0]"));
	printf("ok.1 [%s]\n", json(this->j, "ok.1"));
	printf("f.x [%s]\n", json(this->j, "f.x"));
	printf("f.y[0] [%s]\n", json(this->j, "f.y[0]"));
	printf("f.y[1] [%s]\n", json(this->j, "f.y[1]"));
	printf("f.y[2] [%s]\n", json(this->j, "f.y[2]"));
	printf("f.y [%s]\n", json(this->j, "f.y"));
	printf("f.z [%s]\n", json(this->j, "f.z"));
	printf("f.z.n[1] [%s]\n", json(this->j, "f.z.n[1]"));
	printf("s [%s]\n", json(this->j, "s"));
	printf("e [%s]\n", json(this->j, "e"));
	printf("o [%s]\n", json(this->j, "o"));
	printf("a [%s]\n", json(this->j, "a"));
	printf("[1].k [%s]\n", json("[0, {\"k\": \"v\"}]", "[1].k"));
	exit(0);
}
