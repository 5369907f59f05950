/*
 * kd_impl.h -- kdt.ko's private structures, shared by the kmod/ files.
 *
 * kdt.ko holds at most one enabling: the anonymous one that /init hands it
 * at load time (kd_anon.c).  Its state lives in the single struct kd_state
 * below.  Everything the probe handlers touch (kd_probe.c) is allocated and
 * filled before the first probe is registered and is not changed while any
 * probe is registered, so the hot path needs no lock: per-CPU data is used
 * only by its CPU, with interrupts off.
 *
 *	kd_main.c   module parameters, load/unload, the reserved region
 *	kd_anon.c   the anonymous enabling: firmware DOF -> region -> enable
 *	kd_fbt.c    probe matching (dtrace:::BEGIN, fbt) and kprobes
 *	kd_ksym.c   kernel symbol lookup and iteration for modules
 *	kd_probe.c  probe context: hand firings to common/ecb.c
 *	kd_dev.c    /dev/kdt
 *	kd_env.c    the kernel half of common/kdt_env.h
 */
#ifndef KD_IMPL_H
#define KD_IMPL_H

#include <linux/kprobes.h>
#include <linux/atomic.h>

#include "kdt_env.h"
#include "dof_load.h"
#include "dif_vm.h"
#include "rgn.h"
#include "ecb.h"
#include "kio.h"

#define KD_PROBE_MAX	RGN_PROBE_CAP_DEFAULT
#define KD_EPID_MAX	RGN_EPID_CAP_DEFAULT
#define KD_PROBEID_FBT	4	/* first id after BEGIN/END/ERROR */

/* A probe that at least one ECB matched. */
struct kd_probe {
	struct kprobe	kp_kprobe;	/* fbt only */
	uint32_t	kp_id;
	uint32_t	kp_registered;
	uint64_t	kp_addr;	/* fbt: function address */
	const char	*kp_prov;	/* static strings */
	const char	*kp_mod;
	const char	*kp_name;
	char		kp_func[DOF_FUNCNAMELEN];
	struct ecb_ref	*kp_ecbs;	/* in ECB order (common/ecb.h) */
	uint32_t	kp_necbs;
};

struct kd_state {
	/* region (kd_main.c) */
	void		*ks_region;	/* memremap'd, NULL if none */
	uint64_t	ks_phys;
	uint64_t	ks_size;
	int		ks_rgn_ready;	/* rgn_init done */
	/* anonymous state (kd_anon.c), KIO_ANON_* */
	atomic_t	ks_anon;
	char		ks_reason[256];
	struct dof_enabling *ks_den;
	uint32_t	ks_policy;
	/* probes (kd_fbt.c) */
	struct kd_probe	*ks_probes;
	uint32_t	ks_nprobes;
	uint32_t	ks_nepids;
	uint32_t	ks_nenabled;	/* kprobes registered + BEGIN */
	/* probe context (kd_probe.c): the shared ECB runner, whose per-CPU
	   state is used only by its CPU with interrupts off */
	struct ecb_state *ks_es;
	int		ks_active;	/* fbt probes may record */
};

extern struct kd_state kd_state;

/* kd_main.c */
void kd_fail(const char *fmt, ...) __printf(1, 2);

/* kd_anon.c */
void kd_anon_start(void);
void kd_anon_stop(void);

/* kd_fbt.c */
int kd_match_all(struct dof_enabling *den);
int kd_register_all(void);
void kd_unregister_all(void);
void kd_free_probes(void);
struct kd_probe *kd_begin_probe(void);

/* kd_ksym.c */
int kd_ksym_init(void);
unsigned long kd_ksym_lookup(const char *name);
int kd_ksym_each(int (*fn)(void *, const char *, unsigned long), void *arg);
uint64_t kd_ksym_kaslr(void);

/* kd_probe.c */
int kd_probe_alloc(const struct dof_enabling *den);
void kd_probe_started(void);
void kd_probe_free(void);
void kd_fire(struct kd_probe *kp, struct pt_regs *regs);
int kd_kprobe_pre(struct kprobe *p, struct pt_regs *regs);

/* kd_dev.c */
int kd_dev_init(void);
void kd_dev_exit(void);
struct device *kd_dev_device(void);

#endif /* KD_IMPL_H */
