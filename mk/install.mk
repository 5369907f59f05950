# mk/install.mk -- make install, make uninstall, make deb (included by the
# top-level Makefile).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   make uninstall [PREFIX=...] [DESTDIR=]
#   make deb          Debian packages kdt and kdt-dkms into build/deb/
#
# What goes where (the usual GNU directories under PREFIX):
#
#   BINDIR/kdt, kdt-extract, kdt-initrd       the tools
#   LIBDIR/crash/extensions/kdt.so           crash(8)'s extension; with
#                                            PREFIX=/usr crash's "extend
#                                            kdt.so" finds it by name
#   SRCDIR/kdt-VERSION/                      kdt.ko's sources (kmod/,
#                                            kmod/compat/ and common/,
#                                            flat, as kbuild wants
#                                            them) and dkms.conf: what DKMS
#                                            builds for every kernel
#   DATADIR/kdt/boot/                        the initramfs-tools hook and
#                                            boot script (reference copies)
#   DRACUTMODDIR/90kdt/                      kdt's dracut module, live:
#                                            module-setup.sh, kdt-load.sh,
#                                            kdt-load.service (boot/dracut/)
#   MANDIR/man1, man4                        kdt(1), kdt-extract(1),
#                                            kdt-initrd(1), kdt.ko(4)
#   DATADIR/bash-completion/completions/     kdt, kdt-extract
#   DOCDIR/examples/                         examples/*.d
#   DATADIR/kdt/toolkit/                     toolkit/*.d, the boot and panic
#                                            scripts
#
# The initramfs-tools texts are reference copies: kdt -A installs them
# itself (they are compiled into kdt, build/gen/an_texts.c) into
# /etc/initramfs-tools/ when it installs an enabling, and removes them
# with it.  Installing them there from here would make two owners of the
# same files (kdt -A's manifest and this, or dpkg).  The dracut module is
# the other way round: it is installed here, live, and kdt -A never
# writes it; it puts the enabling into the initramfs only while kdt -A's
# state (/var/lib/kdt/anon/anon.dof) exists and is silent otherwise
# (boot/dracut/module-setup.sh).  DRACUTMODDIR does not follow PREFIX:
# dracut reads modules only from its own directory, /usr/lib/dracut/
# modules.d (pkg-config --variable=dracutmodulesdir dracut), so a
# /usr/local install puts the module there too.
#
# The one version is the file VERSION; dkms.conf and debian/changelog's
# top entry are written from it.  uninstall removes exactly the files
# install writes (the list is INST_FILES, computed the same way) and the
# directories of kdt's own that it leaves empty.

VERSION		:= $(shell cat VERSION)
PREFIX		?= /usr/local
DESTDIR		?=
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
DATADIR		?= $(PREFIX)/share
MANDIR		?= $(DATADIR)/man
DOCDIR		?= $(DATADIR)/doc/kdt
SRCDIR		?= $(PREFIX)/src
CRASHEXTDIR	?= $(LIBDIR)/crash/extensions
BASHCOMPDIR	?= $(DATADIR)/bash-completion/completions
DRACUTMODDIR	?= /usr/lib/dracut/modules.d
DKMSDIR		:= $(SRCDIR)/kdt-$(VERSION)
INSTALL		?= install

INST_TOOLS	:= $(B)/bin/kdt $(B)/bin/kdt-extract $(BOOT_TOOLS)
INST_MAN1	:= $(wildcard man/*.1)
INST_MAN4	:= $(wildcard man/*.4)
INST_EXAMPLES	:= $(wildcard examples/*.d)
INST_TOOLKIT	:= $(wildcard toolkit/*.d)
# kdt.ko's sources as kbuild builds them (build/kmod's symlinks, as files).
INST_KSRC	:= $(filter-out kmod/Kbuild,$(wildcard kmod/*.c kmod/*.h kmod/compat/*.h common/*.c common/*.h))
INST_DRACUT	:= boot/dracut/module-setup.sh boot/dracut/kdt-load.sh \
		   boot/dracut/kdt-load.service
INST_ITOOLS	:= $(wildcard boot/initramfs-tools/*)

INST_FILES	:= $(addprefix $(BINDIR)/,$(notdir $(INST_TOOLS))) \
		   $(if $(CRASHEXT),$(CRASHEXTDIR)/kdt.so) \
		   $(addprefix $(DKMSDIR)/,$(notdir $(INST_KSRC)) Kbuild dkms.conf) \
		   $(addprefix $(DATADIR)/kdt/boot/initramfs-tools/,$(notdir $(INST_ITOOLS))) \
		   $(addprefix $(DRACUTMODDIR)/90kdt/,$(notdir $(INST_DRACUT))) \
		   $(addprefix $(MANDIR)/man1/,$(notdir $(INST_MAN1))) \
		   $(addprefix $(MANDIR)/man4/,$(notdir $(INST_MAN4))) \
		   $(BASHCOMPDIR)/kdt $(BASHCOMPDIR)/kdt-extract \
		   $(addprefix $(DOCDIR)/examples/,$(notdir $(INST_EXAMPLES))) \
		   $(addprefix $(DATADIR)/kdt/toolkit/,$(notdir $(INST_TOOLKIT)))

.PHONY: install install-files install-list uninstall deb

# dkms.conf for kdt-VERSION: AUTOINSTALL, so DKMS builds kdt.ko for every
# kernel installed later (its kernel postinst hook).
$(B)/dkms/dkms.conf: VERSION mk/install.mk
	@mkdir -p $(dir $@)
	@{ echo '# dkms.conf for kdt.ko (written by mk/install.mk from VERSION).'; \
	  echo 'PACKAGE_NAME="kdt"'; \
	  echo 'PACKAGE_VERSION="$(VERSION)"'; \
	  echo 'BUILT_MODULE_NAME[0]="kdt"'; \
	  echo 'DEST_MODULE_LOCATION[0]="/updates/dkms"'; \
	  echo 'AUTOINSTALL="yes"'; } > $@.tmp && mv $@.tmp $@

install: tools $(CRASHEXT) $(B)/dkms/dkms.conf
	@$(MAKE) --no-print-directory install-files

# The copying alone (make deb's debian/rules calls it after building).
install-files: $(B)/dkms/dkms.conf
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DKMSDIR) \
		$(DESTDIR)$(DATADIR)/kdt/boot/initramfs-tools \
		$(DESTDIR)$(DRACUTMODDIR)/90kdt \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man4 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(DATADIR)/kdt/toolkit
	$(INSTALL) -m 755 $(INST_TOOLS) $(DESTDIR)$(BINDIR)/
	$(if $(CRASHEXT),$(INSTALL) -d $(DESTDIR)$(CRASHEXTDIR) && \
		$(INSTALL) -m 644 $(B)/lib/kdt.so $(DESTDIR)$(CRASHEXTDIR)/kdt.so)
	$(INSTALL) -m 644 $(INST_KSRC) $(B)/dkms/dkms.conf $(DESTDIR)$(DKMSDIR)/
	$(INSTALL) -m 644 kmod/Kbuild $(DESTDIR)$(DKMSDIR)/Kbuild
	$(INSTALL) -m 644 $(INST_ITOOLS) $(DESTDIR)$(DATADIR)/kdt/boot/initramfs-tools/
	$(INSTALL) -m 755 boot/dracut/module-setup.sh boot/dracut/kdt-load.sh \
		$(DESTDIR)$(DRACUTMODDIR)/90kdt/
	$(INSTALL) -m 644 boot/dracut/kdt-load.service $(DESTDIR)$(DRACUTMODDIR)/90kdt/
	$(INSTALL) -m 644 $(INST_MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(INST_MAN4) $(DESTDIR)$(MANDIR)/man4/
	$(INSTALL) -m 644 contrib/bash-completion/kdt $(DESTDIR)$(BASHCOMPDIR)/kdt
	ln -sf kdt $(DESTDIR)$(BASHCOMPDIR)/kdt-extract
	$(INSTALL) -m 644 $(INST_EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/
	$(INSTALL) -m 644 $(INST_TOOLKIT) $(DESTDIR)$(DATADIR)/kdt/toolkit/

# The files install writes, one per line (tests/vm/scenarios/tst.pkg-*).
install-list:
	@printf '%s\n' $(INST_FILES)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	-rmdir $(DESTDIR)$(DKMSDIR) $(DESTDIR)$(DRACUTMODDIR)/90kdt \
		$(DESTDIR)$(DATADIR)/kdt/boot/initramfs-tools \
		$(DESTDIR)$(DATADIR)/kdt/boot $(DESTDIR)$(DATADIR)/kdt/toolkit \
		$(DESTDIR)$(DATADIR)/kdt \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) \
		$(if $(CRASHEXT),$(DESTDIR)$(CRASHEXTDIR)) 2>/dev/null

# Debian packages (debian/, debhelper and dh-dkms) into build/deb/.
# dpkg-buildpackage writes its results next to the source tree, so it
# runs on a copy of the tree in build/deb/src (git ls-files, tracked and
# untracked-but-not-ignored: build/ stays out) and the .debs are moved up
# (debian/mkdeb).
deb:
	@bash debian/mkdeb $(B)/deb
