/* Only calls of noreturn functions end a path: the error after a call
 * of an ordinary external function is reachable.
 * expect: symexec=false cegar=false */
struct completion;
extern void complete_and_exit(struct completion *, long) __attribute__((__noreturn__));
extern void complete(struct completion *);
int __VERIFIER_nondet_int(void);
int main(void)
{
  if (__VERIFIER_nondet_int())
    complete_and_exit(0, 0);
  complete(0);
ERROR:
  return 1;
}
