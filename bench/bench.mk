# Benchmarks (not part of make check; the check of their tables is): see bench/README.md.
$(BUILDDIR)/bench-observe: $(BUILDDIR)/bench/bench-observe.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: bench-observe
bench-observe: $(BUILDDIR)/bench-observe
	$(BUILDDIR)/bench-observe --root tests/fixtures/vm-6.1-x86_64-2node-fragmented --passes 5000
	$(BUILDDIR)/bench-observe --root / --passes 2000

# fragd's own overhead on this host (--dry-run) next to node_exporter reading
# the same sources; see bench/README.md "Overhead". DURATION=60 for a quick check.
$(BUILDDIR)/bench-churn: $(BUILDDIR)/bench/churn.o
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: bench-overhead
bench-overhead: $(BUILDDIR)/fragd $(BUILDDIR)/bench-churn
	FRAGD=$(CURDIR)/$(BUILDDIR)/fragd CHURN=$(CURDIR)/$(BUILDDIR)/bench-churn \
		bash bench/overhead.sh

# What fragd buys on a real kernel (qemu): see bench/effect.sh.
.PHONY: bench-effect
bench-effect: $(BUILDDIR)/fragd
	bench/effect.sh

# bench/README.md's and README.md's tables are rendered from bench/results/
# by bench/tables.py; make check-unit fails when the committed ones differ
.PHONY: check-bench-tables
check-unit: check-bench-tables
check-bench-tables:
	@python3 bench/tables.py --check
