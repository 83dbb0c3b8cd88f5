/* The object main gets from the environment may have been filled by
 * register_ops, another entry point of the module that main never calls:
 * the call through o->cb may reach bad. */
struct ops { void (*cb)(void); };
extern struct ops *env_ops(void);
static void bad(void) { ERROR: return; }
static void good(void) { return; }
void register_ops(struct ops *o) { o->cb = bad; }
int main(void)
{
  struct ops *o = env_ops();
  void (*g)(void) = good;
  g();
  if (o)
    o->cb();
  return 0;
}
