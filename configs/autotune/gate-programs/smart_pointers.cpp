// Smart pointers: shared_ptr reference counts through copies/moves/resets,
// weak_ptr expiry and lock, a tree with weak parent links (no leak), an
// observer list pruning expired subscribers, enable_shared_from_this, custom
// deleters, the aliasing constructor, unique_ptr<T[]> and polymorphic owners.
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "smart_pointers: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static int alive = 0;

struct Node {
  std::string name;
  std::weak_ptr<Node> parent;
  std::vector<std::shared_ptr<Node>> children;
  explicit Node(std::string n) : name(std::move(n)) { alive++; }
  ~Node() { alive--; }
  std::string path() const {
    auto p = parent.lock();
    return p ? p->path() + "/" + name : name;
  }
};
static std::shared_ptr<Node> add_child(const std::shared_ptr<Node> &parent, const std::string &name) {
  auto c = std::make_shared<Node>(name);
  c->parent = parent;
  parent->children.push_back(c);
  return c;
}

struct Subject {
  std::vector<std::weak_ptr<std::function<void(int)>>> observers;
  int notify(int v) {
    int delivered = 0;
    for (auto it = observers.begin(); it != observers.end();) {
      if (auto f = it->lock()) { (*f)(v); delivered++; ++it; }
      else it = observers.erase(it); // prune expired subscribers
    }
    return delivered;
  }
};

struct Session : std::enable_shared_from_this<Session> {
  int id;
  explicit Session(int i) : id(i) { alive++; }
  ~Session() { alive--; }
  std::shared_ptr<Session> self() { return shared_from_this(); }
};

struct Shape { virtual ~Shape() { alive--; } virtual int sides() const = 0; Shape() { alive++; } };
struct Tri : Shape { int sides() const override { return 3; } };
struct Quad : Shape { int sides() const override { return 4; } };

int main() {
  {
    auto a = std::make_shared<int>(7);
    CHECK(a.use_count() == 1);
    auto b = a;
    std::shared_ptr<int> c(b);
    CHECK(a.use_count() == 3 && *c == 7);
    auto d = std::move(c);
    CHECK(!c && a.use_count() == 3);
    b.reset();
    CHECK(a.use_count() == 2);
    std::weak_ptr<int> w = a;
    CHECK(!w.expired() && w.use_count() == 2 && *w.lock() == 7);
    a.reset();
    d.reset();
    CHECK(w.expired() && w.lock() == nullptr);
  }

  {
    auto root = std::make_shared<Node>("root");
    auto usr = add_child(root, "usr");
    auto bin = add_child(usr, "bin");
    add_child(usr, "lib");
    add_child(root, "etc");
    CHECK(alive == 5 && bin->path() == "root/usr/bin" && usr->children.size() == 2);
    std::weak_ptr<Node> weak_usr = usr;
    usr.reset();
    CHECK(!weak_usr.expired()); // still owned by root
    root->children.erase(root->children.begin());
    CHECK(weak_usr.expired() && alive == 3 && bin->parent.expired() && bin->path() == "bin");
  }
  CHECK(alive == 0); // weak parent links: no reference cycle, nothing leaked

  {
    Subject subject;
    int sum_a = 0, sum_b = 0;
    auto fa = std::make_shared<std::function<void(int)>>([&](int v) { sum_a += v; });
    auto fb = std::make_shared<std::function<void(int)>>([&](int v) { sum_b += 2 * v; });
    subject.observers.push_back(fa);
    subject.observers.push_back(fb);
    CHECK(subject.notify(5) == 2);
    fb.reset();
    CHECK(subject.notify(10) == 1 && subject.observers.size() == 1);
    CHECK(sum_a == 15 && sum_b == 10);
  }

  {
    auto s = std::make_shared<Session>(42);
    auto again = s->self();
    CHECK(again == s && s.use_count() == 2 && again->id == 42);
    Session stack_session(1);
    try {
      (void)stack_session.self(); // not owned by a shared_ptr
      CHECK(false);
    } catch (const std::bad_weak_ptr &) {
    }
  }
  CHECK(alive == 0);

  {
    int deleted = 0;
    {
      std::shared_ptr<int> p(new int(3), [&deleted](int *q) { deleted += *q; delete q; });
      auto copy = p;
      p.reset();
      CHECK(deleted == 0);
    }
    CHECK(deleted == 3);
    struct Pair { int first; int second; };
    auto owner = std::make_shared<Pair>(Pair{1, 2});
    std::shared_ptr<int> alias(owner, &owner->second); // shares ownership, points to a member
    owner.reset();
    CHECK(*alias == 2 && alias.use_count() == 1);
    std::shared_ptr<void> erased = std::make_shared<std::string>("type-erased");
    CHECK(static_cast<std::string *>(erased.get())->size() == 11);
  }

  {
    std::unique_ptr<int[]> arr(new int[100]);
    for (int i = 0; i < 100; i++) arr[i] = i * i;
    long sum = 0;
    for (int i = 0; i < 100; i++) sum += arr[i];
    CHECK(sum == 328350);
    std::vector<std::unique_ptr<Shape>> shapes;
    for (int i = 0; i < 10; i++) {
      if (i % 3) shapes.push_back(std::make_unique<Tri>());
      else shapes.push_back(std::make_unique<Quad>());
    }
    int sides = 0;
    for (const auto &s : shapes) sides += s->sides();
    CHECK(alive == 10 && sides == 6 * 3 + 4 * 4);
    std::map<int, std::shared_ptr<Shape>> registry;
    registry[1] = std::move(shapes[0]);
    registry[2] = registry[1];
    CHECK(registry[1].use_count() == 2 && !shapes[0]);
  }
  CHECK(alive == 0);

  if (failures) {
    std::fprintf(stderr, "smart_pointers: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
