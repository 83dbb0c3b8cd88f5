/* A call through a function pointer whose only possible targets never
 * return ends the path, as a direct call of them does.
 * expect: symexec=true cegar=true */
struct completion;
extern void complete_and_exit(struct completion *, long) __attribute__((__noreturn__));
extern _Noreturn void do_exit(struct completion *, long);
int __VERIFIER_nondet_int(void);
int main(void)
{
  void (*f)(struct completion *, long) = complete_and_exit;
  if (__VERIFIER_nondet_int())
    f = do_exit;
  if (__VERIFIER_nondet_int()) {
    f(0, 0);
    goto ERROR;
  }
  if (__VERIFIER_nondet_int()) {
    (&complete_and_exit)(0, 0);
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
