/* CPAchecker's class automaton tells a created class from an error pointer
 * by comparing the pointer with a constant: `(void *)$1 <= (void *)2012`.
 * One path keeps the class it created until the final check. */
struct class;
struct module;
extern struct class *__class_create(struct module *owner, const char *name, void *key);
extern void class_destroy(struct class *cls);
extern void ldv_check_final_state(void);
extern int __VERIFIER_nondet_int(void);

int main(void)
{
  struct class *c = __class_create(0, "mpv", 0);
  if ((unsigned long)c > (unsigned long)-4095)
    return 0;
  if (__VERIFIER_nondet_int())
    class_destroy(c);
  ldv_check_final_state();
  return 0;
}
