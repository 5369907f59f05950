/*
 * tst.extract-vars.d -- the anonymous enabling of tst.extract-vars.sh:
 * globals (an int, a string), a thread-local, associative arrays, and
 * three speculations -- one left uncommitted, one committed, one
 * discarded -- so that kdt-extract on the panic's dump has each kind of
 * variable and speculation to recover from the region.
 */
#pragma D option quiet
#pragma D option nspec=4

int g;
string s;

BEGIN
{
	g = 42;
	s = "boot";
	self->t = 7;
	a["crc7", 1] = 5;
	kept = speculation();
	done = speculation();
	gone = speculation();
}

BEGIN
{
	speculate(kept);
	printf("uncommitted at BEGIN\n");
}

BEGIN
{
	speculate(done);
	printf("committed at BEGIN\n");
}

BEGIN
{
	speculate(gone);
	printf("discarded at BEGIN\n");
}

BEGIN
{
	commit(done);
	discard(gone);
}

fbt::do_init_module:entry
{
	mods[stringof(((struct module *)arg0)->name)] = 1;
	loads++;
}
