// Counts global allocations for LayoutAllowed.AllocatesNothing. The replacement is process-wide in
// core_tests: it only counts and forwards to malloc/free, as the default one does. It lives in its
// own translation unit so that no caller sees (and inlines) the malloc/free pairing.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

namespace rb::testing {
uint64_t allocation_count() { return g_allocations.load(std::memory_order_relaxed); }
}  // namespace rb::testing

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
