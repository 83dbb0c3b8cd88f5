/* `bad` is a candidate of the call through o->cb, but its address is taken
 * only in a table no code reachable from main names: the bug-hunting variant
 * cuts that case. No execution makes the call (`enabled` is 0), so the cut
 * is unreachable and the variant's proof that ERROR is unreachable holds
 * for the program. */
struct ops { void (*cb)(void); };
static void bad(void) { ERROR: return; }
static struct ops unused = { .cb = bad };
extern struct ops *env_ops(void);
int main(void)
{
  int enabled = 0;
  struct ops *o = env_ops();
  if (enabled && o)
    o->cb();
  return 0;
}
