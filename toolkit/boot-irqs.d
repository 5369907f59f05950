/*
 * boot-irqs.d -- which interrupts and softirqs fire during boot, how
 * often, and how long do their handlers run?
 *
 * irq:irq_handler_entry/exit bracket one hard-interrupt handler (arg0
 * the IRQ number, arg1 its struct irqaction, whose name is the
 * driver's), irq:softirq_entry/exit one softirq run (arg0 the vector:
 * 0 HI, 1 TIMER, 2 NET_TX, 3 NET_RX, 4 BLOCK, 5 IRQ_POLL, 6 TASKLET,
 * 7 SCHED, 8 HRTIMER, 9 RCU).  The timer tick arrives through the local
 * APIC vector, not a numbered IRQ, so it shows up only as TIMER and
 * HRTIMER softirqs.
 *
 * Run it:
 *	kdt -A -s toolkit/boot-irqs.d		(then reboot)
 *	kdt -ae  or  kdt-extract DUMP
 *
 * Output: the aggregations -- hard interrupts by IRQ and handler name,
 * handler time in ns per handler (quantize), softirqs by vector, and
 * softirq time in ns per vector (quantize).
 */
#pragma D option quiet
#pragma D option aggsize=1m

sdt:irq::irq_handler_entry
{
	self->bi_irq = timestamp;
	@irqs[(int)arg0, stringof(((struct irqaction *)arg1)->name)] = count();
}

sdt:irq::irq_handler_exit
/self->bi_irq/
{
	@irq_ns[stringof(((struct irqaction *)arg1)->name)] =
	    quantize(timestamp - self->bi_irq);
	self->bi_irq = 0;
}

sdt:irq::softirq_entry
{
	self->bi_sirq = timestamp;
	@softirqs[(int)arg0] = count();
}

sdt:irq::softirq_exit
/self->bi_sirq/
{
	@softirq_ns[(int)arg0] = quantize(timestamp - self->bi_sirq);
	self->bi_sirq = 0;
}
