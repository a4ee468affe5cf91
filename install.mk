# make install / uninstall. Never runs systemctl (that is the packager's or
# the administrator's call): enable with `systemctl enable --now fragd`.
#
# Where (PREFIX defaults to /usr/local; the Makefile sets the directories):
#   $(SBINDIR)/fragd, $(BINDIR)/fragd-thp-exec     /usr/local/sbin, /usr/local/bin
#   $(UNITDIR)/fragd.service                       /usr/local/lib/systemd/system
#   $(CATALOGDIR)/fragd.catalog                    /usr/local/lib/systemd/catalog
#   $(BASHCOMPDIR)/fragd                           /usr/local/share/bash-completion/completions
#   $(MANDIR), $(DATADIR)/fragd (fleet, monitoring), $(DOCDIR) (runbook.md,
#   metrics.md)                                    /usr/local/share/...
#   $(SYSCONFDIR)/fragd/fragd.conf (kept if it exists), fragd.conf.d/, fleet.d/
#                                                  /etc/fragd
# With the default nothing lands where dpkg keeps the distribution's files
# (/usr, /lib): systemd, journalctl and bash-completion all look below
# /usr/local as well. PREFIX=/usr installs as a distribution package does
# (debian/rules sets every directory itself).
MANPAGES := $(wildcard docs/*.[1-8])
INSTALL ?= install
# bash-completion's directory below DATADIR: searched through XDG_DATA_DIRS
# (/usr/local/share:/usr/share by default); with PREFIX=/usr the one
# bash-completion's pkg-config file names
BASHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(or $(shell $(PKG_CONFIG) --variable=completionsdir \
	bash-completion 2>/dev/null),$(DATADIR)/bash-completion/completions),$(DATADIR)/bash-completion/completions)

# the journal message catalog (journalctl -x): journalctl reads
# /usr/local/lib/systemd/catalog and /usr/lib/systemd/catalog; Debian's
# systemd package updates the catalog database by a dpkg trigger on
# /usr/lib/systemd/catalog
CATALOGDIR ?= $(PREFIX)/lib/systemd/catalog

# The alerts' runbook_url and the catalog's Support: name the runbook where
# this install puts it: file://$(DOCDIR)/runbook.md (the files in the tree say
# /usr/share/doc/fragd, the Debian package's place; the catalog @DOCDIR@)
RUNBOOK_SED := -e 's|file:///usr/share/doc/fragd/runbook\.md|file://$(DOCDIR)/runbook.md|g' -e 's|@DOCDIR@|$(DOCDIR)|g'

# The unit, the catalog and the monitoring files name install paths: they
# are made for this install in a directory of their own per set of paths, so
# a make install with another PREFIX (or two at once, as the integration
# tests do) never takes the other's; each written whole (temp file, rename)
GEN := $(BUILDDIR)/install/$(subst /,_,$(SBINDIR)+$(SYSCONFDIR)+$(DOCDIR))
MONITORING := $(patsubst %,$(GEN)/%,$(wildcard monitoring/*))
$(GEN)/fragd.catalog: systemd/fragd.catalog
	@mkdir -p $(dir $@)
	sed $(RUNBOOK_SED) $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(GEN)/monitoring/%: monitoring/%
	@mkdir -p $(dir $@)
	sed $(RUNBOOK_SED) $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(GEN)/fragd.service: systemd/fragd.service.in
	@mkdir -p $(dir $@)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@

install: all $(GEN)/fragd.service $(GEN)/fragd.catalog $(MONITORING)
	$(INSTALL) -Dm755 $(BUILDDIR)/fragd $(DESTDIR)$(SBINDIR)/fragd
	@for t in $(TOOLS); do case $$t in *fragd-thp-exec) \
		$(INSTALL) -Dm755 $$t $(DESTDIR)$(BINDIR)/fragd-thp-exec;; esac; done
	$(INSTALL) -Dm644 $(GEN)/fragd.service $(DESTDIR)$(UNITDIR)/fragd.service
	@if [ -f fragd.conf ] && [ ! -e $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf ]; then \
		$(INSTALL) -Dm644 fragd.conf $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf; \
	else echo "install: keeping existing $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf"; fi
	$(INSTALL) -d $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf.d $(DESTDIR)$(SYSCONFDIR)/fragd/fleet.d
	@for f in fleet/*.conf; do [ -e "$$f" ] && \
		$(INSTALL) -Dm644 $$f $(DESTDIR)$(DATADIR)/fragd/fleet/$$(basename $$f); done; true
	@for m in $(MANPAGES); do s=$${m##*.}; \
		$(INSTALL) -Dm644 $$m $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	@for f in $(MONITORING); do \
		$(INSTALL) -Dm644 $$f $(DESTDIR)$(DATADIR)/fragd/monitoring/$$(basename $$f); done
	$(INSTALL) -Dm644 -t $(DESTDIR)$(DOCDIR) docs/runbook.md docs/metrics.md
	$(INSTALL) -Dm644 completion/fragd.bash $(DESTDIR)$(BASHCOMPDIR)/fragd
	ln -sf fragd $(DESTDIR)$(BASHCOMPDIR)/fragd-thp-exec
	$(INSTALL) -Dm644 $(GEN)/fragd.catalog $(DESTDIR)$(CATALOGDIR)/fragd.catalog
	@if [ -z "$(DESTDIR)" ] && command -v journalctl >/dev/null; then \
		journalctl --update-catalog || echo "install: journalctl --update-catalog failed"; \
	else echo "install: run journalctl --update-catalog on the target for journalctl -x"; fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/fragd $(DESTDIR)$(BINDIR)/fragd-thp-exec $(DESTDIR)$(UNITDIR)/fragd.service
	@for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	rm -rf $(DESTDIR)$(DATADIR)/fragd
	rm -f $(DESTDIR)$(DOCDIR)/runbook.md $(DESTDIR)$(DOCDIR)/metrics.md
	@rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	rm -f $(DESTDIR)$(BASHCOMPDIR)/fragd $(DESTDIR)$(BASHCOMPDIR)/fragd-thp-exec
	rm -f $(DESTDIR)$(CATALOGDIR)/fragd.catalog
	@echo "uninstall: left $(SYSCONFDIR)/fragd in place (your configuration)"
