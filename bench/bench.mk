# Benchmarks (not part of make check): see bench/README.md.
$(BUILDDIR)/bench-observe: $(BUILDDIR)/bench/bench-observe.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: bench-observe
bench-observe: $(BUILDDIR)/bench-observe
	$(BUILDDIR)/bench-observe --root tests/fixtures/vm-6.1-x86_64-2node-fragmented --passes 5000
	$(BUILDDIR)/bench-observe --root / --passes 2000
