/* The error is on main's own path; the function table is not reachable from
 * main, so the bug-hunting variant leaves it out and finds the error alone. */
struct ops { void (*cb)(void); };
static void other(void) { return; }
static struct ops table = { .cb = other };
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  if (__VERIFIER_nondet_int() == 3) {
    ERROR: return 1;
  }
  return 0;
}
