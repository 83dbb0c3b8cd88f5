/* The error is on main's own path. The call through o->cb has two
 * candidates; `other`'s address is taken only in a table no code reachable
 * from main names, so the bug-hunting variant cuts that case and finds the
 * error alone. */
struct ops { void (*cb)(void); };
static void other(void) { return; }
static void mine(void) { return; }
static struct ops table = { .cb = other };
extern struct ops *env_ops(void);
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  struct ops *o = env_ops();
  void (*g)(void) = mine;
  g();
  if (o)
    o->cb();
  if (__VERIFIER_nondet_int() == 3) {
    ERROR: return 1;
  }
  return 0;
}
