/* Small functions exercising the front end's lowering. */
extern int ext(int v);
extern int __VERIFIER_nondet_int(void);
int a1(int v) { return v + 1; }
int a2(int v) { return v + 2; }
int b2(int v, int w) { return v + w; }
struct pair { int a; int b; int c; };

int fallthrough(int x)
{
  int r = 0;
  switch (x) {
  case 1:
    r += 1;
  case 2:
    r += 2;
    break;
  default:
    r = 9;
  }
  return r;
}

int goto_into_loop(int n)
{
  int i = 0;
  goto inside;
  while (i < n) {
    i++;
  inside:
    i += 2;
  }
  return i;
}

int short_circuit(int a)
{
  int x = 0;
  if (a && ext(a))
    x = 1;
  if (a || ext(2))
    x = 2;
  return x;
}

int compound(int x, int *p)
{
  x *= 3;
  x <<= 1;
  p += 2;
  *p -= x;
  return x;
}

int comma_and_post(int y)
{
  int x;
  x = (y = 1, y + 2);
  y = x++;
  return y;
}

int call_in_condition(int v)
{
  if (ext(v) > 0)
    return 1;
  while (ext(v + 1))
    v--;
  return v;
}

int pointers(int k)
{
  int (*fp)(int) = a1;
  if (k)
    fp = &a2;
  return fp(3);
}

int stmt_expr(void)
{
  int x = ({ int t = 3; t + 1; });
  return x;
}

int designated(void)
{
  struct pair v = { .c = 2, .a = 1 };
  int arr[4] = { [2] = 7, 1 };
  return v.a + arr[3];
}

int main(void)
{
  int n = __VERIFIER_nondet_int();
  return fallthrough(n) + goto_into_loop(n) + short_circuit(n) + compound(n, &n) + comma_and_post(n)
         + call_in_condition(n) + pointers(n) + stmt_expr() + designated() + b2(n, n);
}
