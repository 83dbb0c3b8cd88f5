/* GCC's layout attributes: `packed` removes padding, `aligned(N)` raises
 * the alignment, `#pragma pack(N)` caps the alignment of members.
 * expect: symexec=true cegar=true */
struct s { char a; int b; } __attribute__((__packed__));
struct t { char a; int b __attribute__((aligned(8))); };
struct __attribute__((aligned(16))) u { char a; };
#pragma pack(push, 2)
struct v { char a; long b; char c; };
#pragma pack(pop)
struct w { char a; long b; };
int main(void)
{
  struct s x;
  if (!(sizeof(struct s) == 5 && (char *)&x.b - (char *)&x == 1
      && sizeof(struct t) == 16 && sizeof(struct u) == 16
      && sizeof(struct v) == 12 && sizeof(struct w) == 16)) {
  ERROR:
    return 1;
  }
  return 0;
}
