/*
 * an_regen.c -- kdt -A: what boot integrations a root has, and
 * regenerating the initramfs and grub.cfg after kdt -A changed their inputs.
 *
 * Regeneration: initramfs-tools' update-initramfs when it is there (its
 * presence says initramfs-tools builds this system's initramfs), else
 * dracut -f; update-grub, else grub-mkconfig or grub2-mkconfig.  Under
 * --root they run chrooted into it.  A tool that is missing is named with
 * the command to run, and the exit status is 1: never a silent success.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anon/an_impl.h"

static const char *
an_rootname(const char *root)
{
	return root == NULL ? "/" : root;
}


static int
an_exists(const char *root, const char *rel)
{
	char p[AN_PATHMAX];

	an_path(p, sizeof (p), root, rel);
	return access(p, F_OK) == 0;
}

/*
 * Does root's grub-mkconfig source the .cfg files of /etc/default/grub.d?
 * Debian and Ubuntu patch it to; upstream GRUB and Fedora's grub2-mkconfig
 * read only /etc/default/grub (Fedora keeps kernel options in BLS entries,
 * changed with grubby).  Without a grub-mkconfig to look at, assume yes.
 */
static int
an_grub_dropins(const char *root)
{
	char rel[AN_PATHMAX], path[AN_PATHMAX], *text;
	int yes;

	if (!an_tool_find(root, "grub-mkconfig", rel, sizeof (rel)) &&
	    !an_tool_find(root, "grub2-mkconfig", rel, sizeof (rel)))
		return 1;
	an_path(path, sizeof (path), root, rel);
	if (an_file_read(path, &text, NULL) != 0)
		return 1;
	yes = strstr(text, "default/grub.d") != NULL;
	free(text);
	return yes;
}

uint32_t
an_integrations(const char *root)
{
	char t[AN_PATHMAX];
	uint32_t ints = 0;

	if (an_exists(root, "/usr/share/initramfs-tools/init"))
		ints |= AN_INT_INITRAMFS_TOOLS;
	/*
	 * dracut itself, not /usr/lib/dracut/modules.d: kdt's package and
	 * make install put kdt's module there on every system.
	 */
	if (an_exists(root, "/usr/lib/dracut/dracut-functions.sh") ||
	    an_tool_find(root, "dracut", t, sizeof (t)))
		ints |= AN_INT_DRACUT;
	if (an_exists(root, "/etc/default/grub") ||
	    an_tool_find(root, "update-grub", t, sizeof (t)) ||
	    an_tool_find(root, "grub-mkconfig", t, sizeof (t)) ||
	    an_tool_find(root, "grub2-mkconfig", t, sizeof (t)))
		ints |= an_grub_dropins(root) ? AN_INT_GRUB :
		    AN_INT_GRUB_NODROPIN;
	/* kdump: kexec leaves the region out of /proc/vmcore (boot/kdump/) */
	if (an_exists(root, "/usr/sbin/kdump-config") &&
	    an_exists(root, "/lib/systemd/system/kdump-tools-dump.service"))
		ints |= AN_INT_KDUMP_TOOLS;
	else if (an_tool_find(root, "kdumpctl", t, sizeof (t)))
		ints |= AN_INT_KDUMPCTL;
	return ints;
}

/* ---- regeneration ---- */

/*
 * Run argv in root, saying what ran; "skip" leading words are not shown
 * (a script passed to sh -c shows as the words after it).
 */
static int
an_cmd_shown(const char *root, char *const argv[], int skip, int dry,
    FILE *out, FILE *err)
{
	char line[1024];
	size_t n = 0;
	int i, st;

	line[0] = '\0';
	if (root != NULL && strcmp(root, "/") != 0)
		n += (size_t)snprintf(line, sizeof (line), "chroot %s ", root);
	for (i = skip; argv[i] != NULL && n < sizeof (line); i++)
		n += (size_t)snprintf(line + n, sizeof (line) - n, "%s%s",
		    i > skip ? " " : "", argv[i]);
	if (dry) {
		fprintf(out, "would run: %s\n", line);
		return 0;
	}
	st = an_run(root, argv, err);
	fprintf(out, "ran: %s: %s %d\n", line, st < 0 ? "could not run," :
	    "exit status", st);
	return st == 0 ? 0 : -1;
}

static int
an_cmd(const char *root, char *const argv[], int dry, FILE *out, FILE *err)
{
	return an_cmd_shown(root, argv, 0, dry, out, err);
}

/*
 * kdump's capture initramfs is built apart from the boot one (kdump-tools
 * copies /etc/initramfs-tools when a kernel is installed; kdumpctl
 * rebuilds on its own schedule): boot/kdump/kdt-kdump-setup rebuilds it
 * so it carries kdt.ko, or no longer does, and reloads the capture kernel
 * when this is the running system.  The script is kdt's embedded text,
 * run with sh -c, so it works on removal too, after its files are gone.
 */
static int
an_regen_kdump(const char *root, int dry, FILE *out, FILE *err)
{
	int chr = root != NULL && strcmp(root, "/") != 0;
	char *argv[] = { "sh", "-c", (char *)an_text("kdump/kdt-kdump-setup"),
	    "kdt-kdump-setup", "regen", "/", chr ? "--no-reload" : NULL, NULL };

	if (argv[2] == NULL) {
		fprintf(err, "kdt: internal error: kdump/kdt-kdump-setup is not among kdt's embedded texts\n");
		return -1;
	}
	return an_cmd_shown(root, argv, 3, dry, out, err);
}

static int
an_missing(const char *root, const char *what, const char *cmd, FILE *out)
{
	int chr = root != NULL && strcmp(root, "/") != 0;

	fprintf(out, "NOT regenerated: %s in %s; run: %s%s%s%s\n", what,
	    an_rootname(root), chr ? "chroot " : "", chr ? root : "",
	    chr ? " " : "", cmd);
	return -1;
}

static int
an_regen_initramfs(const char *root, uint32_t ints, char kvers[][64],
    uint32_t nk, int dry, FILE *out, FILE *err)
{
	char tool[AN_PATHMAX], rel[AN_PATHMAX];
	uint32_t i;
	int rv = 0;

	if ((ints & AN_INT_INITRAMFS_TOOLS) &&
	    an_tool_find(root, "update-initramfs", tool, sizeof (tool))) {
		for (i = 0; i < nk; i++) {
			snprintf(rel, sizeof (rel), "/boot/initrd.img-%s",
			    kvers[i]);
			char *argv[] = { "update-initramfs",
			    an_exists(root, rel) ? "-u" : "-c", "-k", kvers[i],
			    NULL };
			if (an_cmd(root, argv, dry, out, err) != 0)
				rv = -1;
		}
		return rv;
	}
	if ((ints & AN_INT_DRACUT) &&
	    an_tool_find(root, "dracut", tool, sizeof (tool))) {
		for (i = 0; i < nk; i++) {
			char *argv[] = { "dracut", "-f", "--kver", kvers[i],
			    NULL };
			if (an_cmd(root, argv, dry, out, err) != 0)
				rv = -1;
		}
		return rv;
	}
	if (ints & (AN_INT_INITRAMFS_TOOLS | AN_INT_DRACUT)) {
		for (i = 0; i < nk; i++) {
			fprintf(out, "NOT regenerated: the initramfs of %s (neither update-initramfs nor dracut in %s); run: update-initramfs -u -k %s (or dracut -f --kver %s)\n",
			    kvers[i], an_rootname(root), kvers[i], kvers[i]);
		}
		return -1;
	}
	return 0;
}

static int
an_regen_grub(const char *root, int dry, FILE *out, FILE *err)
{
	char tool[AN_PATHMAX];

	if (an_tool_find(root, "update-grub", tool, sizeof (tool))) {
		char *argv[] = { "update-grub", NULL };

		return an_cmd(root, argv, dry, out, err);
	}
	if (an_tool_find(root, "grub-mkconfig", tool, sizeof (tool)) &&
	    an_exists(root, "/boot/grub")) {
		char *argv[] = { "grub-mkconfig", "-o", "/boot/grub/grub.cfg",
		    NULL };

		return an_cmd(root, argv, dry, out, err);
	}
	if (an_tool_find(root, "grub2-mkconfig", tool, sizeof (tool))) {
		char *argv[] = { "grub2-mkconfig", "-o",
		    "/boot/grub2/grub.cfg", NULL };

		return an_cmd(root, argv, dry, out, err);
	}
	return an_missing(root, "grub.cfg (no update-grub, no grub-mkconfig with /boot/grub, no grub2-mkconfig)",
	    "update-grub (or grub-mkconfig -o /boot/grub/grub.cfg)", out);
}

int
an_regen(const char *root, uint32_t ints, char kvers[][64], uint32_t nk,
    int dry, FILE *out, FILE *err)
{
	int rv = 0;

	if (an_regen_initramfs(root, ints, kvers, nk, dry, out, err) != 0)
		rv = -1;
	if ((ints & AN_INT_GRUB) && an_regen_grub(root, dry, out, err) != 0)
		rv = -1;
	if ((ints & (AN_INT_KDUMP_TOOLS | AN_INT_KDUMPCTL)) &&
	    an_regen_kdump(root, dry, out, err) != 0)
		rv = -1;
	return rv;
}

