/* Rule 134_1a (a probe passes a failed register_netdev on). */
struct net_device { int ifindex; };
struct usb_driver { int id; };
int register_netdev(struct net_device *d);
int usb_register_driver(struct usb_driver *d, void *owner, const char *name);
void ldv_check_return_value(int res);
void ldv_check_return_value_probe(int res);

void bad_Ignored(struct net_device *d) {
  int err = register_netdev(d);
  ldv_check_return_value_probe(0);
}
void safe_Ignored(struct net_device *d, struct usb_driver *u) {
  int err = register_netdev(d);
  ldv_check_return_value_probe(err);
  ldv_check_return_value(0);
  err = usb_register_driver(u, 0, "m");
  ldv_check_return_value_probe(0);
}
int main(void) { return 0; }
