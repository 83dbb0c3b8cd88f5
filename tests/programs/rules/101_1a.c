/* Rule 101_1a (block requests). */
struct request { int tag; };
struct request_queue { int depth; };
struct bio { int size; };
struct request *blk_get_request(struct request_queue *q, int rw, unsigned int mask);
struct request *blk_make_request(struct request_queue *q, struct bio *b, unsigned int mask);
void blk_put_request(struct request *r);

void bad_DoubleGet(struct request_queue *q) {
  struct request *r = blk_get_request(q, 0, 208);
  struct request *s = blk_get_request(q, 0, 208);
}
void safe_DoubleGet(struct request_queue *q) {
  struct request *r = blk_get_request(q, 0, 208);
  blk_put_request(r);
  r = blk_get_request(q, 0, 208);
  blk_put_request(r);
}
void bad_BadPut(struct request *r) { blk_put_request(r); }
/* With GFP_ATOMIC the request is held only when the result is valid. */
void safe_BadPut(struct request_queue *q, struct bio *b) {
  struct request *r = blk_make_request(q, b, 32);
  /* blk_make_request returns an error pointer on failure (IS_ERR_OR_NULL). */
  if (r && (unsigned long)r < 18446744073709547521UL) blk_put_request(r);
}
void bad_Leak(struct request_queue *q, struct bio *b) { struct request *r = blk_make_request(q, b, 16); }
void safe_Leak(struct request_queue *q) { struct request *r = blk_get_request(q, 1, 16); blk_put_request(r); }
int main(void) { return 0; }
