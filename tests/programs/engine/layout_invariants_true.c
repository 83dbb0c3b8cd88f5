/* What holds in every layout: an object's address is neither NULL nor an
 * error pointer (IS_ERR), it is 8-byte aligned, the same pointer has the same
 * integer value, an address converted to an integer and back is the pointer
 * again, and so is one less a member's offset (container_of through integer
 * arithmetic, as CIL writes it), and two integer values of addresses are
 * equal exactly when the pointers are.
 * expect: symexec=true cegar=true */
extern void *malloc(unsigned long size);
struct pair { int a; int b; };
int g;
struct pair pr;
int main(void)
{
  int *p = malloc(sizeof(int));
  unsigned long a;
  int *q;
  int *pb = &pr.b;
  struct pair *back;
  if (p == 0)
    return 0;
  a = (unsigned long)p;
  if (a == 0 || a >= (unsigned long)-4095L || (a & 7UL) != 0)
    goto ERROR;
  if ((unsigned long)&g == 0 || (unsigned long)&g != (unsigned long)&g)
    goto ERROR;
  q = (int *)a;
  *q = 5;
  if (*p != 5)
    goto ERROR;
  back = (struct pair *)((unsigned long)pb - 4UL);
  back->a = 7;
  if (pr.a != 7)
    goto ERROR;
  if ((unsigned long)back != (unsigned long)&pr || (unsigned long)&g == (unsigned long)&pr)
    goto ERROR;
  return 0;
ERROR:
  return 1;
}
