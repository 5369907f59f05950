/*
 * Unsigned and signed types of every width wrap as their size says.
 * kdt-args: -q
 */
BEGIN
{
	this->a = (uint8_t)250;
	this->a += 10;
	this->b = (int16_t)32767;
	this->b++;
	this->c = (uint32_t)0;
	this->c--;
	printf("%d %d %u\n", this->a, this->b, this->c);
	exit(0);
}
