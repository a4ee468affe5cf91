# packaging.mk - release tarball and Debian package. Included by the top
# Makefile.
#
#   make dist            build/fragd-VERSION.tar.gz from HEAD, reproducible
#                        (git archive: the commit's time on every entry,
#                        owner root, gzip -n), with a .version file so a
#                        build from the tarball (no .git) knows its version
#   make deb             the .deb, built from that tarball in a temp dir,
#                        into build/deb/ (the tree stays clean)
#   make check-package   the package's checks (tests/package/check-package.sh),
#                        part of make check

DISTDIR ?= build
# the version of HEAD (not --dirty: the archive is HEAD, not the work tree)
DIST_VERSION = $(or $(if $(wildcard .git),$(shell git describe --tags --match 'v[0-9]*' HEAD 2>/dev/null | sed 's/^v//')),$(VERSION))

.PHONY: dist deb check-package
dist:
	@[ -e .git ] || { echo "make dist: needs a git checkout (it archives HEAD)" >&2; exit 1; }
	@[ -z "$$(git status --porcelain --untracked-files=no)" ] || \
		echo "make dist: uncommitted changes are not in the tarball (it archives HEAD)" >&2
	@mkdir -p $(DISTDIR)
	@v=$(DIST_VERSION); \
	git archive --format=tar --prefix=fragd-$$v/ --add-virtual-file=fragd-$$v/.version:$$v HEAD \
		| gzip -9n >$(DISTDIR)/fragd-$$v.tar.gz.tmp && \
	mv $(DISTDIR)/fragd-$$v.tar.gz.tmp $(DISTDIR)/fragd-$$v.tar.gz && \
	echo "$(DISTDIR)/fragd-$$v.tar.gz" && \
	sha256sum $(DISTDIR)/fragd-$$v.tar.gz

deb: dist
	@sh scripts/build-deb.sh $(DISTDIR)/fragd-$(DIST_VERSION).tar.gz $(DISTDIR)/deb

check-package:
	@VERSION=$(VERSION) DIST_VERSION=$(DIST_VERSION) bash tests/package/check-package.sh
