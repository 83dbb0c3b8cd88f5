/* A call through a function pointer that may reach a returning target
 * goes on after it: only the noreturn target's case ends there.
 * expect: symexec=false cegar=false */
struct completion;
extern void complete_and_exit(struct completion *, long) __attribute__((__noreturn__));
static void finish(struct completion *c, long code) { }
int __VERIFIER_nondet_int(void);
int main(void)
{
  void (*f)(struct completion *, long) = complete_and_exit;
  if (__VERIFIER_nondet_int())
    f = finish;
  f(0, 0);
ERROR:
  return 1;
}
