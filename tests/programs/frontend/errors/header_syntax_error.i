# 1 "drivers/foo/module.c"
# 1 "include/linux/foo.h" 1
struct foo { int a; };
static inline int foo_get(struct foo *f)
{
  return f->a
}
# 3 "drivers/foo/module.c" 2
int main(void) { struct foo f = { 1 }; return foo_get(&f); }
