# make install / uninstall. Never runs systemctl (that is the packager's or
# the administrator's call): enable with `systemctl enable --now fragd`.
MANPAGES := $(wildcard docs/*.[1-8])
INSTALL ?= install
# bash-completion's directory below PREFIX (/usr/local/share/... is searched
# too, through XDG_DATA_DIRS); the Debian package sets it explicitly
BASHCOMPDIR ?= $(or $(shell $(PKG_CONFIG) --define-variable=prefix=$(PREFIX) \
	--variable=completionsdir bash-completion 2>/dev/null),$(DATADIR)/bash-completion/completions)

# the journal message catalog (journalctl -x): journalctl reads
# /usr/local/lib/systemd/catalog too; Debian's systemd package updates the
# catalog database by a dpkg trigger on /usr/lib/systemd/catalog
CATALOGDIR ?= $(PREFIX)/lib/systemd/catalog

$(BUILDDIR)/fragd.service: systemd/fragd.service.in
	@mkdir -p $(dir $@)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@

install: all $(BUILDDIR)/fragd.service
	$(INSTALL) -Dm755 $(BUILDDIR)/fragd $(DESTDIR)$(SBINDIR)/fragd
	@for t in $(TOOLS); do case $$t in *fragd-thp-exec) \
		$(INSTALL) -Dm755 $$t $(DESTDIR)$(BINDIR)/fragd-thp-exec;; esac; done
	$(INSTALL) -Dm644 $(BUILDDIR)/fragd.service $(DESTDIR)$(UNITDIR)/fragd.service
	@if [ -f fragd.conf ] && [ ! -e $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf ]; then \
		$(INSTALL) -Dm644 fragd.conf $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf; \
	else echo "install: keeping existing $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf"; fi
	$(INSTALL) -d $(DESTDIR)$(SYSCONFDIR)/fragd/fragd.conf.d $(DESTDIR)$(SYSCONFDIR)/fragd/fleet.d
	@for f in fleet/*.conf; do [ -e "$$f" ] && \
		$(INSTALL) -Dm644 $$f $(DESTDIR)$(DATADIR)/fragd/fleet/$$(basename $$f); done; true
	@for m in $(MANPAGES); do s=$${m##*.}; \
		$(INSTALL) -Dm644 $$m $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	@for f in monitoring/*; do [ -e "$$f" ] && \
		$(INSTALL) -Dm644 $$f $(DESTDIR)$(DATADIR)/fragd/monitoring/$$(basename $$f); done; true
	$(INSTALL) -Dm644 completion/fragd.bash $(DESTDIR)$(BASHCOMPDIR)/fragd
	ln -sf fragd $(DESTDIR)$(BASHCOMPDIR)/fragd-thp-exec
	$(INSTALL) -Dm644 systemd/fragd.catalog $(DESTDIR)$(CATALOGDIR)/fragd.catalog
	@if [ -z "$(DESTDIR)" ] && command -v journalctl >/dev/null; then \
		journalctl --update-catalog || echo "install: journalctl --update-catalog failed"; \
	else echo "install: run journalctl --update-catalog on the target for journalctl -x"; fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/fragd $(DESTDIR)$(BINDIR)/fragd-thp-exec $(DESTDIR)$(UNITDIR)/fragd.service
	@for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	rm -rf $(DESTDIR)$(DATADIR)/fragd
	rm -f $(DESTDIR)$(BASHCOMPDIR)/fragd $(DESTDIR)$(BASHCOMPDIR)/fragd-thp-exec
	rm -f $(DESTDIR)$(CATALOGDIR)/fragd.catalog
	@echo "uninstall: left $(SYSCONFDIR)/fragd in place (your configuration)"
