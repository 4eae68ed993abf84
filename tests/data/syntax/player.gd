extends CharacterBody2D
class_name Player

signal health_changed(value)

const SPEED := 300.0
@export var max_health := 100
var health := max_health


func _ready() -> void:
	health = max_health
	health_changed.emit(health)


func _physics_process(delta: float) -> void:
	var direction := Input.get_axis("ui_left", "ui_right")
	velocity.x = direction * SPEED
	move_and_slide()


func take_damage(amount: int) -> void:
	health = max(health - amount, 0)
	health_changed.emit(health)
	if health == 0:
		die()


func die() -> void:
	queue_free()


class Inventory:
	var items: Array = []

	func add(item) -> void:
		items.append(item)
