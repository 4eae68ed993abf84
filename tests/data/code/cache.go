// Package cache provides a small LRU cache with expiry.
package cache

import (
	"container/list"
	"sync"
	"time"
)

// entry is one cached value and when it stops being valid.
type entry struct {
	key     string
	value   []byte
	expires time.Time
}

// Cache is a goroutine-safe LRU cache.
type Cache struct {
	mu       sync.Mutex
	capacity int
	ttl      time.Duration
	order    *list.List
	items    map[string]*list.Element
}

// New returns a cache holding at most capacity entries for ttl each.
func New(capacity int, ttl time.Duration) *Cache {
	return &Cache{
		capacity: capacity,
		ttl:      ttl,
		order:    list.New(),
		items:    make(map[string]*list.Element),
	}
}

// Get returns the value for key when present and fresh.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	element, ok := c.items[key]
	if !ok {
		return nil, false
	}
	item := element.Value.(*entry)
	if time.Now().After(item.expires) {
		c.removeElement(element)
		return nil, false
	}
	c.order.MoveToFront(element)
	return item.value, true
}

// Put stores value under key, evicting the least recently used entry if full.
func (c *Cache) Put(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if element, ok := c.items[key]; ok {
		element.Value.(*entry).value = value
		element.Value.(*entry).expires = time.Now().Add(c.ttl)
		c.order.MoveToFront(element)
		return
	}
	c.items[key] = c.order.PushFront(&entry{key: key, value: value, expires: time.Now().Add(c.ttl)})
	if c.order.Len() > c.capacity {
		c.removeElement(c.order.Back())
	}
}

func (c *Cache) removeElement(element *list.Element) {
	c.order.Remove(element)
	delete(c.items, element.Value.(*entry).key)
}
